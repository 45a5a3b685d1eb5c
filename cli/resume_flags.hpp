// The resume what-if's flags: where the checkpoint is taken, how the restarted loop skips, and how the
// restarted job differs. They turn the loader flags' config into a resume case (trace/resume_case.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "analysis/resume_what_if.hpp"
#include "trace/trace_json.hpp"

namespace accel::cli {

struct ResumeFlags {
  std::string at;                           // --resume-at E:S
  std::optional<std::int64_t> at_step;      // --resume-at-step G (optimizer steps, with --grad-accum)
  std::string with = "skip_first_batches";  // --resume-with
  bool loop_set_epoch = false;
  std::optional<std::int64_t> ranks;        // --resume-ranks
  std::optional<std::int64_t> batch_size;   // --resume-batch-size
  std::optional<std::int64_t> skip;         // --resume-skip: batches skipped in epoch E when not S

  void add_to(CLI::App& app);
  bool enabled() const { return !at.empty() || at_step.has_value(); }
  // A restarted job's option given without a checkpoint to restart from (what a caller refuses).
  bool given_without_checkpoint() const {
    return !enabled() && (with != "skip_first_batches" || loop_set_epoch || ranks || batch_size || skip);
  }

  // The resume case of the loader flags' config; ConfigError names the flag and the rule. `conversion`
  // receives how --resume-at-step became E:S.
  trace::ResumeCase resume_case(trace::Json loader_config, std::int64_t grad_accum,
                                std::optional<std::string>& conversion) const;

  // The resume what-if of that case (the report and `check --require exact-resume` both call this); an error
  // about the checkpoint's position names the flag that placed it.
  analysis::ResumeReport what_if(const trace::Json& loader_config, std::int64_t grad_accum) const;
};

}  // namespace accel::cli
