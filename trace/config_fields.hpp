// Reading a config object field by field: every missing field, wrong type or out-of-range value is a
// ConfigError naming the field's dotted path and the rule, so the CLI can say exactly what is wrong.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/batch.hpp"
#include "core/device_mesh.hpp"
#include "core/torch_seed.hpp"
#include "excerpt.hpp"
#include "input_limits.hpp"
#include "nearest_name.hpp"
#include "trace_json.hpp"

namespace accel::trace {

[[noreturn]] inline void fail(const std::string& field, const std::string& rule) {
  throw ConfigError("config." + field + ": " + rule);
}

// A view of one JSON object with the dotted path its errors are reported under.
class Fields {
 public:
  // `obj` must be an object (parse_config and parse_schedule check before looking inside).
  Fields(const Json& obj, std::string prefix) : obj_(obj), prefix_(std::move(prefix)) {}

  const Json* find(const std::string& key) const {
    if (std::find(read_.begin(), read_.end(), key) == read_.end()) read_.push_back(key);
    auto it = obj_.find(key);
    return it == obj_.end() || it->is_null() ? nullptr : &*it;
  }

  // Refuses a key the parser never looked at: a misspelt or misplaced field (`shuffle` where the loader is
  // not read, `use_stateful_dataloader` outside config.accelerator) would otherwise leave the case the user
  // meant unsimulated.
  // `read_by_caller` are keys of the same object a caller reads and removed before handing it here (the metrics
  // and resume families' own keys around their loader): named as known, never refused.
  void refuse_unread(const std::vector<std::string>& read_by_caller = {}) const {
    for (const auto& [key, value] : obj_.items()) {
      if (std::find(read_.begin(), read_.end(), key) != read_.end()) continue;
      if (std::find(read_by_caller.begin(), read_by_caller.end(), key) != read_by_caller.end()) continue;
      std::vector<std::string> known = read_;
      known.insert(known.end(), read_by_caller.begin(), read_by_caller.end());
      const std::string nearest = nearest_name(key, known);
      fail_on(key, "is not a field of this config" +
                       (nearest.empty() ? std::string() : " (did you mean `" + nearest + "`?)") +
                       "; the fields read here are " + joined(known));
    }
  }

  [[noreturn]] void fail_on(const std::string& key, const std::string& rule) const {
    fail(prefix_ + excerpt(key), rule);
  }

  // Every count defaults to at most kMaxCount (input_limits.hpp): what the core forms from counts must fit
  // in int64.
  std::int64_t integer(const std::string& key, std::optional<std::int64_t> fallback, std::int64_t min_value,
                       std::int64_t max_value = kMaxCount) const {
    const Json* v = find(key);
    if (!v) {
      if (!fallback) fail_on(key, "is required (an integer >= " + std::to_string(min_value) + ")");
      return *fallback;
    }
    if (!v->is_number_integer()) fail_on(key, "must be an integer, got " + v->dump());
    // Above 2^63-1 the value arrives unsigned; reading it as int64 would wrap it negative.
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(max_value)) {
      fail_on(key, "must be <= " + std::to_string(max_value) + " (input limit), got " + v->dump());
    }
    const auto value = v->get<std::int64_t>();
    if (value < min_value) fail_on(key, "must be >= " + std::to_string(min_value) + ", got " + std::to_string(value));
    if (value > max_value) {
      fail_on(key, "must be <= " + std::to_string(max_value) + " (input limit), got " + std::to_string(value));
    }
    return value;
  }

  std::optional<std::int64_t> optional_integer(const std::string& key, std::int64_t min_value,
                                               std::int64_t max_value = kMaxCount) const {
    if (!find(key)) return std::nullopt;
    return integer(key, std::nullopt, min_value, max_value);
  }

  double number(const std::string& key, std::optional<double> fallback) const {
    const Json* v = find(key);
    if (!v) {
      if (!fallback) fail_on(key, "is required (a number)");
      return *fallback;
    }
    if (!v->is_number()) fail_on(key, "must be a number, got " + v->dump());
    return v->get<double>();
  }

  bool boolean(const std::string& key, bool fallback) const {
    const Json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail_on(key, "must be true or false, got " + v->dump());
    return v->get<bool>();
  }

  std::string string(const std::string& key) const {
    const Json* v = find(key);
    if (!v || !v->is_string()) fail_on(key, "is required (a string)");
    return v->get<std::string>();
  }

  std::string string_or(const std::string& key, const std::string& fallback) const {
    const Json* v = find(key);
    if (!v) return fallback;
    if (!v->is_string()) fail_on(key, "must be a string, got " + v->dump());
    return v->get<std::string>();
  }

  std::vector<Batch> batches(const std::string& key) const {
    const Json* v = find(key);
    if (!v || !v->is_array()) fail_on(key, "must be a list of batches (lists of sample ids)");
    std::vector<Batch> out;
    for (std::size_t i = 0; i < v->size(); ++i) {
      const Json& b = (*v)[i];
      const std::string at = key + "[" + std::to_string(i) + "]";
      if (!b.is_array()) fail_on(at, "must be a list of sample ids");
      Batch batch;
      for (const Json& id : b) {
        if (!id.is_number_integer() || (id.is_number_unsigned() && id.get<std::uint64_t>() > kMaxCount) ||
            id.get<std::int64_t>() < -kMaxCount) {
          fail_on(at, "sample ids must be integers in [-" + std::to_string(kMaxCount) + ", " + std::to_string(kMaxCount) + "]");
        }
        batch.push_back(id.get<std::int64_t>());
      }
      out.push_back(std::move(batch));
    }
    return out;
  }

  std::vector<std::int64_t> integers(const std::string& key) const {
    std::vector<std::int64_t> out;
    const Json* v = find(key);
    if (!v) return out;
    if (!v->is_array()) fail_on(key, "must be a list of integers >= 0");
    for (const Json& e : *v) {
      const bool in_range = e.is_number_unsigned() ? e.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxCount)
                                                   : e.is_number_integer() && e.get<std::int64_t>() >= 0;
      if (!in_range) {
        fail_on(key, "entries must be integers in [0, " + std::to_string(kMaxCount) + "], got " + e.dump());
      }
      out.push_back(e.get<std::int64_t>());
    }
    return out;
  }

  std::vector<bool> booleans(const std::string& key) const {
    const Json* v = find(key);
    if (!v || !v->is_array()) fail_on(key, "is required (a list of true/false)");
    std::vector<bool> out;
    for (const Json& e : *v) {
      if (!e.is_boolean()) fail_on(key, "entries must be true or false, got " + e.dump());
      out.push_back(e.get<bool>());
    }
    return out;
  }

  // A seed as the script's Python int: anything in [-2^63, 2^64), the range torch's manual_seed accepts.
  std::optional<PythonInt> python_seed(const std::string& key) const {
    const Json* v = find(key);
    if (!v) return std::nullopt;
    if (v->is_number_unsigned()) return PythonInt{v->get<std::uint64_t>()};
    if (!v->is_number_integer()) {
      fail_on(key, "must be an integer seed in [-2^63, 2^64) (what torch.manual_seed accepts), got " + v->dump());
    }
    return PythonInt{v->get<std::int64_t>()};
  }

  // A seed given straight to manual_seed: torch keeps a negative seed's 64-bit two's complement.
  std::optional<std::uint64_t> seed(const std::string& key) const {
    const auto v = python_seed(key);
    if (!v) return std::nullopt;
    return unpack_torch_seed(*v);
  }

 private:
  static std::string joined(std::vector<std::string> keys) {
    std::sort(keys.begin(), keys.end());
    std::string out;
    for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
    return out;
  }

  const Json& obj_;
  std::string prefix_;
  mutable std::vector<std::string> read_;  // every key find() was asked for, in order
};

// A ParallelismConfig's sizes at config.`field` ({dp_replicate_size, dp_shard_size, tp_size, cp_size, sp_size}):
// the mesh Accelerator(parallelism_config=...) prepares every loader with (none when every size is 1, or with
// sp > 1: DeepSpeed's sequence parallelism); its ValueErrors for a job of `world` processes as ConfigErrors.
std::optional<DeviceMesh> parse_parallelism_config(const Json& j, std::int64_t world, const std::string& field);

}  // namespace accel::trace
