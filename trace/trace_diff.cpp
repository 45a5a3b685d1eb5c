#include "trace_diff.hpp"

#include <cmath>
#include <string>
#include <utility>

namespace accel::trace {
namespace {

bool numbers_equal(const Json& a, const Json& b) {
  if (a.is_number_float() || b.is_number_float()) {
    const double x = a.get<double>();
    const double y = b.get<double>();
    if (x == y) return true;
    return std::fabs(x - y) <= 1e-12 * std::max(std::fabs(x), std::fabs(y));
  }
  // The parser stores non-negative integers as unsigned and negative ones as signed, while traces built in
  // memory hold int64: compare by value, never through a cast (2^64-1 is not -1, 2^63 is not -2^63).
  const auto as_value = [](const Json& v) -> std::pair<bool, std::uint64_t> {  // (negative, magnitude bits)
    if (v.is_number_unsigned()) return {false, v.get<std::uint64_t>()};
    const std::int64_t x = v.get<std::int64_t>();
    return {x < 0, static_cast<std::uint64_t>(x)};
  };
  return as_value(a) == as_value(b);
}

std::string compact(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 400) s = s.substr(0, 397) + "...";
  return s;
}

// An ImportError's message ends with the module's file, "(/path/to/site-packages/accelerate/data_loader.py)": where
// the recorder's environment lived, not a fact of the release; messages are compared without it.
bool is_import_error(const Json& v) {
  return v.contains("type") && v["type"] == "ImportError" && v.contains("message") && v["message"].is_string();
}

Json without_module_file(const Json& message) {
  if (!message.is_string()) return message;
  std::string m = message.get<std::string>();
  if (const auto open = m.rfind(" ("); open != std::string::npos && !m.empty() && m.back() == ')') m.erase(open);
  return m;
}

// gloo's "Connection closed by peer [127.0.0.1]:2443" starts with its source file and line
// ("[/__w/pytorch/.../pair.cc:561]") and names the peer's address and port: the recorder's build and machine, not a
// fact of the job. Compared without them.
bool is_closed_connection(const Json& v) {
  return v.contains("type") && v["type"] == "RuntimeError" && v.contains("message") && v["message"].is_string() &&
         v["message"].get<std::string>().find("Connection closed by peer [") != std::string::npos;
}

std::string without_gloo_endpoint(std::string m) {
  if (!m.empty() && m.front() == '[') {
    if (const auto close = m.find("] "); close != std::string::npos) m.erase(0, close + 2);
  }
  const std::string peer = "Connection closed by peer [";
  if (const auto at = m.find(peer); at != std::string::npos) {
    const auto begin = at + peer.size() - 1;
    auto end = m.find(']', begin);
    if (end != std::string::npos) {
      ++end;
      if (end < m.size() && m[end] == ':') {
        ++end;
        while (end < m.size() && m[end] != '.' && m[end] != ' ') ++end;
      }
      m.erase(begin - 1, end - begin + 1);
    }
  }
  return m;
}

std::optional<Divergence> walk(const Json& e, const Json& a, const std::string& path, bool top) {
  auto differ = [&](const std::string& p, const std::string& ev, const std::string& av) {
    return Divergence{p, "", ev, av};
  };
  if (e.is_number() && a.is_number()) {
    if (numbers_equal(e, a)) return std::nullopt;
    return differ(path, compact(e), compact(a));
  }
  if (e.type() != a.type()) return differ(path, compact(e), compact(a));
  if (e.is_object()) {
    const bool import_error = is_import_error(e) && is_import_error(a);
    const bool closed_connection = is_closed_connection(e) && is_closed_connection(a);
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (top && it.key() == "reference") continue;
      const std::string child = path.empty() ? it.key() : path + "." + it.key();
      if (!a.contains(it.key())) return differ(child, compact(it.value()), "(absent)");
      if (import_error && it.key() == "message") {
        if (without_module_file(it.value()) == without_module_file(a[it.key()])) continue;
        return differ(child, compact(it.value()), compact(a[it.key()]));
      }
      if (closed_connection && it.key() == "message") {
        if (without_gloo_endpoint(it.value().get<std::string>()) ==
            without_gloo_endpoint(a[it.key()].get<std::string>()))
          continue;
        return differ(child, compact(it.value()), compact(a[it.key()]));
      }
      if (auto d = walk(it.value(), a[it.key()], child, false)) return d;
    }
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (top && it.key() == "reference") continue;
      if (!e.contains(it.key())) return differ(path.empty() ? it.key() : path + "." + it.key(), "(absent)", compact(it.value()));
    }
    return std::nullopt;
  }
  if (e.is_array()) {
    const std::size_t n = std::min(e.size(), a.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (auto d = walk(e[i], a[i], path + "[" + std::to_string(i) + "]", false)) return d;
    }
    if (e.size() != a.size()) {
      const std::string p = path + "[" + std::to_string(n) + "]";
      return differ(p, n < e.size() ? compact(e[n]) : "(absent)", n < a.size() ? compact(a[n]) : "(absent)");
    }
    return std::nullopt;
  }
  if (e == a) return std::nullopt;
  return differ(path, compact(e), compact(a));
}

// The digits of the first `[N]` that follows `marker` in `path` (searching from `from`), or "" when there
// is none. A plain scan: std::regex recursed once per character and overflowed the stack on long paths.
std::string index_after(const std::string& path, const std::string& marker, std::size_t from = 0,
                        std::size_t* found_at = nullptr) {
  for (std::size_t at = path.find(marker, from); at != std::string::npos; at = path.find(marker, at + 1)) {
    std::size_t i = at + marker.size();
    if (i >= path.size() || path[i] != '[') continue;
    std::size_t j = ++i;
    while (j < path.size() && path[j] >= '0' && path[j] <= '9') ++j;
    if (j == i || j >= path.size() || path[j] != ']') continue;
    if (found_at) *found_at = at;
    return path.substr(i, j - i);
  }
  return "";
}

std::string location_of(const std::string& path) {
  std::string out;
  if (path.rfind("ranks[", 0) == 0) {
    const std::string r = index_after(path, "ranks");
    if (!r.empty()) out += "rank " + r;
  }
  if (const std::string e = index_after(path, "epochs"); !e.empty()) out += (out.empty() ? "" : ", ") + std::string("epoch ") + e;
  // The earliest of .batches[N], .end_of_dataloader[N], .remainder[N], .steps[N] (what the regex matched).
  std::size_t best = std::string::npos;
  std::string what, index;
  for (const char* name : {".batches", ".end_of_dataloader", ".remainder", ".steps"}) {
    std::size_t at = std::string::npos;
    const std::string n = index_after(path, name, 0, &at);
    if (!n.empty() && at < best) {
      best = at;
      what = name;
      index = n;
    }
  }
  if (!index.empty()) out += (out.empty() ? "" : ", ") + std::string(what == ".steps" ? "step " : "batch ") + index;
  return out;
}

}  // namespace

std::optional<Divergence> first_divergence(const Json& expected, const Json& actual) {
  auto d = walk(expected, actual, "", true);
  if (d) d->location = location_of(d->path);
  return d;
}

std::string describe(const Divergence& d) {
  std::string s = "first divergence at " + (d.path.empty() ? std::string("(top level)") : d.path);
  if (!d.location.empty()) s += " (" + d.location + ")";
  s += ": expected " + d.expected + ", actual " + d.actual;
  return s;
}

}  // namespace accel::trace
