// Family `resume` (golden/SCHEMA.md): a training script checkpointed with Accelerator.save_state after S
// batches of epoch E, restarted in fresh processes that call load_state and continue by one of the ways
// users skip what was already seen. Plain values; resume_json reads and writes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace.hpp"

namespace accel::trace {

// How the restarted loop avoids the batches already trained on.
enum class ResumeMode {
  SkipFirstBatches,  // accelerator.skip_first_batches(prepared, S) for epoch E, the prepared loader after
  Continue,          // iterate the prepared loader and `continue` over its first S batches
  Stateful,          // use_stateful_dataloader=True: load_state restores the StatefulDataLoader's position
  None,              // nothing skipped: epoch E starts over
};

const char* mode_name(ResumeMode mode);
std::optional<ResumeMode> mode_from_name(const std::string& name);

struct ResumeSpec {
  std::int64_t epoch = 0;  // E: the checkpoint is taken in this epoch ...
  std::int64_t step = 0;   // S: ... after this many batches on every rank
  ResumeMode mode = ResumeMode::SkipFirstBatches;
  bool loop_set_epoch = false;  // the training loop calls prepared.set_epoch(epoch) before every epoch
  // Stateful only: the rank whose dl_state_dict.bin write lands last (every rank writes that one file, with no
  // barrier, and every restarted rank loads it); needed only where the ranks' states differ.
  std::optional<std::int64_t> state_writer;
  // What-if only (never recorded): the restarted job's world size and batch size, and the batch count the
  // restarted loop skips in epoch E when it is not S (skip_first_batches / continue).
  std::optional<std::int64_t> resume_ranks;
  std::optional<std::int64_t> resume_batch_size;
  std::optional<std::int64_t> skip;
};

struct ResumeCase {
  LoaderCase job;  // api "accelerator": the script's Accelerator, set_seed and DataLoader
  ResumeSpec resume;
};

struct ResumeRankRecord {
  std::int64_t rank = 0;
  // Every pass of the uninterrupted job on this rank (empty for ranks the first job does not have).
  std::vector<std::vector<Batch>> uninterrupted;
  // The restarted job's passes, from epoch E on (empty for ranks it does not have).
  std::vector<std::vector<Batch>> resumed;
  std::optional<ErrorRecord> error;
};

struct ResumeTrace {
  std::optional<ErrorRecord> error;
  std::vector<ResumeRankRecord> ranks;
};

}  // namespace accel::trace
