// Reading and writing traces in the golden schema (golden/SCHEMA.md), schema_version 1.
//
// Configs are validated field by field: a missing field, a wrong type or an out-of-range value raises
// ConfigError naming the field and the rule, so the CLI can say exactly what is wrong.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/accelerate_release.hpp"
#include "core/id_ranges.hpp"
#include "trace.hpp"

namespace accel::trace {

using Json = nlohmann::ordered_json;

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The family a config belongs to, from its content (api, dataset_kind, dispatch_batches).
std::string family_of(const Json& config);

// Parses a golden-schema `config` object into the family it describes. Raises ConfigError.
CaseConfig parse_config(const Json& config);

// A loader config (the accelerator or prepare_data_loader families) that a caller's family wraps, with the
// keys the caller read itself before removing them (for the unknown-key refusal's "did you mean").
// What every trace file starts with: case, family, config and the simulator's `reference`.
Json trace_head(const std::string& case_name, const std::string& family, const Json& config);

// An error record as the golden schema writes it (where, type, message, rank).
Json error_record_json(const ErrorRecord& e);

LoaderCase parse_loader_config(const Json& config, const std::vector<std::string>& read_by_caller);
// The input limits of replaying every example of a datasets.IterableDataset, as the simulator does: raises
// ConfigError naming the field and the rule. Parsing applies them where every path replays (a shuffled stream, a
// split_dataset_by_node one); the what-if answers the others from their shard lists (core/hf_stream_plan.hpp).
void check_replay_limits(const LoaderCase& lc);

// The whole trace file for a case: case, family, config (as given), reference, error, ranks/epochs.
Json to_json(const std::string& case_name, const Json& config, const Trace& trace);

// dump(to_json(...)) (with `family` in place of the computed one), written as it is produced: the ranks one
// at a time, so a large trace never exists as one JSON document in memory.
void write_trace(std::ostream& os, const std::string& case_name, const Json& config, const Trace& trace,
                 const std::optional<Json>& family = std::nullopt);

// Text in the golden files' layout: pretty-printed, with lists of scalars on one line.
std::string dump(const Json& value);

// [[first, last], ...]: each run of consecutive ids, inclusive (the reports' `*id_ranges` fields).
Json id_ranges_json(const IdRanges& ids);

// Limits on what is read as a config or trace: the dump, diff and config walks recurse per level, and a
// file (or /dev/zero) is read whole before parsing, so both are bounded up front (README: Input limits).
constexpr int kMaxJsonDepth = 64;
// Keys of one JSON object: the ordered object type (which keeps a trace's fields in the order written) finds a key by
// a linear scan, so a generated object of 100k keys would take quadratic time; the largest object of any recorded
// trace has 26.
constexpr std::size_t kMaxJsonObjectKeys = 4096;
constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;

// Parses text as JSON; raises ConfigError with the parser's position on broken input, on nesting deeper
// than kMaxJsonDepth, on a number outside double's range and on an object that repeats a key.
Json parse_text(const std::string& text, const std::string& source_name);

// The options a release does not have, left at their defaults (use_seedable_sampler false, data_seed null,
// use_stateful_dataloader false), removed from `options` (config.accelerator, or a prepare_data_loader config): a
// script on that release never passes them, and a passed one would raise the release's TypeError.
void drop_keywords_the_release_lacks(Json& options, AccelerateRelease release);

// torch.__version__ ("1.13.0a0", "2.15.0+cpu") as config.torch_version: "2.6" from torch 2.6 on (randperm's
// inside-out loop), "1.13" before; "2.6" when it cannot be read.
std::string torch_shuffle_version(const std::string& torch_version);

// A trace file's config as the simulator must read it to reproduce that recording. A config that names no Accelerate
// release gets the recording's (reference.accelerate_version, a ".devN" or "+local" suffix dropped): the default is
// the newest modelled release, while every golden set recorded without a release in its config ran 1.15.0. A config
// that names its release but no torch gets the recording's torch (torch_shuffle_version of reference.torch). Families
// whose configs take no release (scheduler, bss_varying, randperm, the Trainer's) are left alone. Anything else
// (no reference, a config that is not an object) is returned as it is.
Json config_as_recorded(const Json& trace_file);

// The contents of `path` ("-": standard input), at most kMaxInputBytes; ConfigError beyond that or when it
// cannot be read.
std::string read_input(const std::string& path);

}  // namespace accel::trace
