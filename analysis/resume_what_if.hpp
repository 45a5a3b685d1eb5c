// The resume what-if: does a job restarted from Accelerator.save_state see exactly what the uninterrupted
// job would have, sample by sample? And if not, the smallest change to the script that makes it so, found
// and verified by simulating it. Renderers (resume_render) read only this model.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/id_ranges.hpp"
#include "core/sample_order.hpp"
#include "trace/resume_case.hpp"

namespace accel::analysis {

inline constexpr std::size_t kResumeFirstIds = 10;

// Ids seen more (extra) or less (missing) often than in the uninterrupted job: how many occurrences, and
// the first runs of ids in the order they are (or would have been) trained on.
struct IdDelta {
  std::int64_t count = 0;
  IdRanges first{kResumeFirstIds};
};

struct ResumeEpochOutcome {
  std::int64_t epoch = 0;
  bool identical = true;
  IdDelta extra, missing;
};

struct ResumeOutcome {
  // Every rank trains on the same batches, in the same order, as in the uninterrupted job. When the
  // restarted job has other ranks or another batch size its batches cannot be the same: then identical
  // means every epoch trains on the same samples (no extra, no missing).
  bool identical = true;
  bool same_shape = true;  // the restarted job has the first job's ranks and batch size
  std::vector<ResumeEpochOutcome> epochs;  // epochs E .. last
  IdDelta extra, missing;                  // over all of them
};

// One edit of the script or the command line.
struct ResumeChange {
  std::string what;  // "call dataloader.set_epoch(epoch) in the loop"
  std::string flag;  // "--loop-set-epoch"
};

struct ResumeRecipe {
  bool needed = false;  // the resume is not identical as configured
  bool found = false;
  std::vector<ResumeChange> changes;
  std::string statement;  // plain language: what to change, or why nothing among the options does
  std::int64_t candidates_simulated = 0;
};

struct ResumeReport {
  trace::ResumeCase config;
  std::optional<std::string> conversion;  // how --resume-at-step became E:S
  std::int64_t batches_per_epoch = 0;     // rank 0's batches per epoch in the first job
  ResumeOutcome outcome;
  std::vector<std::string> reasons;       // why it is not identical, from what Accelerate saves
  ResumeRecipe recipe;
};

// "A (--flag), B (--flag) and C (--flag)": a recipe's changes in one sentence, as both resume what-ifs print them.
std::string change_list(const std::vector<ResumeChange>& changes);

// Enumerates sample ids in training order (step by step, rank by rank within a step).
using IdVisitor = std::function<void(const std::function<void(SampleId)>&)>;

// One epoch's comparison, shared by the Accelerate and the Trainer resume: `expected` (the uninterrupted
// epoch's part after what `already_trained` covers) against `resumed`, ids < dataset_len. Fills the counts and
// first ids of `extra` (listed in `resumed`'s order) and `missing` (in `expected`'s order), and `identical`.
void compare_epoch(ResumeEpochOutcome& outcome, std::int64_t dataset_len, const IdVisitor& expected,
                   const IdVisitor& already_trained, const IdVisitor& resumed);

// Simulates the case and compares the restarted job with the uninterrupted one.
ResumeOutcome compare_resume(const trace::ResumeCase& config);

// compare_resume, the reasons and the verified recipe.
ResumeReport resume_what_if(const trace::ResumeCase& config, std::optional<std::string> conversion = std::nullopt);

// --resume-at-step G with --grad-accum K: users multiply by K and divide by the per-rank batches of an
// epoch (epoch = G*K // len(dl), step = G*K % len(dl)). Returns (E, S).
std::pair<std::int64_t, std::int64_t> epoch_and_step_of(std::int64_t optimizer_step, std::int64_t grad_accum,
                                                        std::int64_t batches_per_epoch);

// Rank 0's batches per epoch in the first job (len(prepared_dataloader)).
std::int64_t batches_per_epoch(const trace::ResumeCase& config);

}  // namespace accel::analysis
