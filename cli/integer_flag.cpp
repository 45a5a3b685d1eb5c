#include "cli/integer_flag.hpp"

#include <array>
#include <stdexcept>

#include "cli/launcher.hpp"
#include "core/torch_rng_state.hpp"
#include "trace/decimal_integer.hpp"
#include "trace/input_limits.hpp"
#include "trace/trace_json.hpp"

namespace accel::cli {
namespace {

using trace::kMaxCount;
using trace::kMaxEpochs;
using trace::kMaxRanks;
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// The bounds are the config's input limits (trace/input_limits.hpp): a flag accepts what its config field does.
constexpr std::array kIntegerFlags = {
    IntegerFlag{"--ranks", 1, kMaxRanks, "num_processes"},
    IntegerFlag{"--dataset-len", 0, kMaxCount, "samples in the dataset"},
    IntegerFlag{"--batch-size", 1, kMaxCount, "the DataLoader's batch_size"},
    IntegerFlag{"--num-samples", 1, kMaxCount, "RandomSampler(num_samples=N)"},
    IntegerFlag{"--skip-batches", 0, kMaxCount, "skip_first_batches(k)"},
    IntegerFlag{"--epochs", 1, kMaxEpochs, "passes over the loader"},
    IntegerFlag{"--num-workers", 0, trace::kMaxWorkers, "DataLoader(num_workers=W)"},
    IntegerFlag{"--num-shards", 1, trace::kMaxHfShards, "the datasets.IterableDataset's shards"},
    IntegerFlag{"--buffer-size", 1, trace::kMaxHfExamples, "the shuffle buffer's size"},
    IntegerFlag{"--max-buffer-input-shards", 1, trace::kMaxHfShards, "shuffle(max_buffer_input_shards=K)"},
    IntegerFlag{"--rng-draws", 0, static_cast<std::int64_t>(kMaxRngStateDraws), "words drawn before prepare"},
    IntegerFlag{"--grad-accum", 1, kMaxCount, "gradient_accumulation_steps"},
    IntegerFlag{"--warmup", 0, kMaxCount, "warm-up steps"},
    IntegerFlag{"--total-steps", 1, kMaxCount, "schedule length"},
    IntegerFlag{"--step-size", 1, kMaxCount, "StepLR step_size"},
    IntegerFlag{"--overflow-steps", 0, kMaxCount, "micro-steps that overflow"},
    IntegerFlag{"--overflow-seed", kInt64Min, kInt64Max, "seed of the overflow draws"},
    IntegerFlag{"--resume-at-step", 0, kMaxCount, "optimizer step of the checkpoint"},
    IntegerFlag{"--resume-ranks", 1, kMaxRanks, "the restarted job's num_processes"},
    IntegerFlag{"--resume-batch-size", 1, kMaxCount, "the restarted job's batch_size"},
    IntegerFlag{"--resume-skip", 0, kMaxCount, "batches skipped in the resumed epoch"},
    IntegerFlag{"--resume-at", 0, kMaxCount, "EPOCH and STEP of the checkpoint (E:S)"},
    IntegerFlag{"--per-device-batch-size", 1, kMaxCount, "TrainingArguments.per_device_train_batch_size"},
    IntegerFlag{"--max-steps", 1, kMaxCount, "TrainingArguments.max_steps"},
    IntegerFlag{"--resume-grad-accum", 1, kMaxCount, "the resumed Trainer's gradient_accumulation_steps"},
    IntegerFlag{"--eval-dataset-len", 0, kMaxCount, "the eval dataset's length"},
    IntegerFlag{"--per-device-eval-batch-size", 1, kMaxCount, "TrainingArguments.per_device_eval_batch_size"},
    IntegerFlag{"--num-evaluations", 1, trace::kMaxEpochs, "trainer.evaluate() calls"},
    IntegerFlag{"--eval-break-after", 0, kMaxCount, "the step the evaluation loop breaks at"},
    IntegerFlag{"--nproc", 1, kMaxLaunchRanks, "local ranks launched"},
    IntegerFlag{"--die-at-step", 0, kMaxCount, "the batch collective a test rank dies before"},
    IntegerFlag{"--die-rank", 0, kMaxRanks - 1, "the rank --die-at-step kills"},
};

}  // namespace

std::span<const IntegerFlag> integer_flags() { return kIntegerFlags; }

const IntegerFlag& integer_flag(std::string_view name) {
  for (const IntegerFlag& f : kIntegerFlags) {
    if (name == f.name) return f;
  }
  throw std::logic_error("integer flag " + std::string(name) + " has no entry in cli/integer_flag.cpp's table");
}

CLI::Validator decimal_integer(std::int64_t min_value, std::int64_t max_value) {
  return CLI::Validator(
      [min_value, max_value](std::string& text) -> std::string {
        return trace::read_decimal_integer(text, min_value, max_value).problem;
      },
      max_value == kInt64Max ? "INT>=" + std::to_string(min_value)
                             : "INT in [" + std::to_string(min_value) + ", " + std::to_string(max_value) + "]");
}

std::int64_t read_integer_for(std::string_view flag_name, const std::string& text, const std::string& source) {
  const IntegerFlag& flag = integer_flag(flag_name);
  const auto read = trace::read_decimal_integer(text, flag.min, flag.max);
  if (!read.value) throw trace::ConfigError(source + ": " + read.problem);
  return *read.value;
}

}  // namespace accel::cli
