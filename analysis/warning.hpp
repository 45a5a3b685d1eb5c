// One finding of an analysis (what-if, training, evaluation): a stable code a tool can match on, a severity,
// the plain-language message, and the evidence behind it (counts, ranks, steps, sample ids) as typed values.
// Renderers lay it out (terminal `warning[code]: message`, a JSON object); they never parse the message.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace accel::analysis {

// error: the job fails or hangs as configured; warning: it runs but trains or measures on the wrong samples
// or schedule; note: worth knowing (the order differs every run, a simulated fix).
enum class Severity { Error, Warning, Note };

inline const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error:
      return "error";
    case Severity::Warning:
      return "warning";
    case Severity::Note:
      return "note";
  }
  return "warning";
}

using EvidenceValue = std::variant<std::int64_t, double, bool, std::string, std::vector<std::int64_t>>;

struct Warning {
  std::string code;  // stable, kebab-case: "duplicated-samples", "uneven-steps-hang", ... (docs/report-json.md)
  Severity severity = Severity::Warning;
  std::string message;
  std::vector<std::pair<std::string, EvidenceValue>> evidence;  // in the order the message cites them

  Warning() = default;
  Warning(std::string c, Severity s, std::string m) : code(std::move(c)), severity(s), message(std::move(m)) {}

  Warning& with(std::string key, EvidenceValue value) {
    evidence.emplace_back(std::move(key), std::move(value));
    return *this;
  }
};

// The codes every analysis emits, in one place so docs and tests can list them.
namespace code {
inline constexpr const char* kRejectedConfig = "rejected-config";
inline constexpr const char* kIterationError = "iteration-error";
inline constexpr const char* kDuplicatedSamples = "duplicated-samples";
inline constexpr const char* kDroppedSamples = "dropped-samples";
inline constexpr const char* kDataSeedIgnored = "data-seed-ignored";
inline constexpr const char* kUnseededShuffle = "unseeded-shuffle";
inline constexpr const char* kIdsNotDrawn = "ids-not-drawn";
inline constexpr const char* kIdsFollowGlobalGenerator = "ids-follow-global-generator";
inline constexpr const char* kUnevenStepsHang = "uneven-steps-hang";
inline constexpr const char* kLenMismatch = "len-mismatch";
inline constexpr const char* kSkipEpochCounter = "skip-epoch-counter";
inline constexpr const char* kExactAlternative = "exact-alternative";
inline constexpr const char* kFp16SkippedSteps = "fp16-skipped-steps";
inline constexpr const char* kSchedulerRunsFast = "scheduler-runs-fast";
inline constexpr const char* kScheduleEndsEarly = "schedule-ends-early";
inline constexpr const char* kScheduleFarFromEnd = "schedule-far-from-end";
inline constexpr const char* kWarmupUnscaled = "warmup-unscaled";
inline constexpr const char* kOneCycleGuard = "onecycle-guard";
inline constexpr const char* kSchedulerError = "scheduler-error";
inline constexpr const char* kInexactMetrics = "inexact-metrics";
inline constexpr const char* kLaterPassDiffers = "later-pass-differs";
inline constexpr const char* kWorkerDuplicates = "worker-duplicates";
inline constexpr const char* kWorkerPartialBatches = "worker-partial-batches";
inline constexpr const char* kHfUnevenShards = "hf-uneven-shards";
inline constexpr const char* kHfSplitTwice = "hf-split-twice";
inline constexpr const char* kResumeError = "resume-error";
inline constexpr const char* kResumePastEnd = "resume-past-end";
inline constexpr const char* kTrainerNeverSteps = "trainer-never-steps";
inline constexpr const char* kEvalLossWeighted = "eval-loss-weighted";
inline constexpr const char* kEvalPredictionsWrong = "eval-predictions-wrong";
inline constexpr const char* kEvalCrash = "eval-crash";
inline constexpr const char* kEvalHang = "eval-hang";
inline constexpr const char* kEvalError = "eval-error";
}  // namespace code

}  // namespace accel::analysis
