#include "trace_diff.hpp"

#include <cmath>
#include <regex>

namespace accel::trace {
namespace {

bool numbers_equal(const Json& a, const Json& b) {
  if (a.is_number_float() || b.is_number_float()) {
    const double x = a.get<double>();
    const double y = b.get<double>();
    if (x == y) return true;
    return std::fabs(x - y) <= 1e-12 * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.is_number_unsigned() && b.is_number_unsigned()) return a.get<std::uint64_t>() == b.get<std::uint64_t>();
  return a.get<std::int64_t>() == b.get<std::int64_t>();
}

std::string compact(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 400) s = s.substr(0, 397) + "...";
  return s;
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
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (top && it.key() == "reference") continue;
      const std::string child = path.empty() ? it.key() : path + "." + it.key();
      if (!a.contains(it.key())) return differ(child, compact(it.value()), "(absent)");
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

std::string location_of(const std::string& path) {
  static const std::regex rank(R"(^ranks\[(\d+)\])"), epoch(R"(epochs\[(\d+)\])"),
      batch(R"(\.(batches|end_of_dataloader|remainder|steps)\[(\d+)\])");
  std::smatch m;
  std::string out;
  if (std::regex_search(path, m, rank)) out += "rank " + m[1].str();
  if (std::regex_search(path, m, epoch)) out += (out.empty() ? "" : ", ") + std::string("epoch ") + m[1].str();
  if (std::regex_search(path, m, batch)) {
    out += (out.empty() ? "" : ", ") + std::string(m[1].str() == "steps" ? "step " : "batch ") + m[2].str();
  }
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
