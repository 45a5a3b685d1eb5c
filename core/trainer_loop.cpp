#include "trainer_loop.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <utility>

#include "core/error.hpp"
#include "core/major_minor.hpp"
#include "core/mutation.hpp"
#include "core/saturating.hpp"

namespace accel {

const char* release_name(TransformersRelease release) {
  switch (release) {
    case TransformersRelease::v4_57:
      return "4.57";
    case TransformersRelease::v5_25:
      return "5.25";
  }
  return "?";
}

std::string transformers_releases_text() {
  std::string out;
  const std::size_t n = std::size(kTransformersReleases);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out += i + 1 == n ? " and " : ", ";
    out += kTransformersReleases[i].name;
  }
  return out;
}

std::optional<TransformersRelease> transformers_release_from_name(const std::string& name) {
  for (const auto& e : kTransformersReleases) {
    if (name == e.name) return e.rules;
  }
  return std::nullopt;
}

std::string transformers_refusal(const std::string& name) {
  const auto wanted = major_minor(name);
  if (!wanted) {
    return "must be a transformers release \"X.Y\": " + transformers_releases_text() +
           " (the releases recorded), got \"" + name + "\"";
  }
  // The nearest recorded release below and above (the table is in order).
  const TransformersReleaseEntry* below = nullptr;
  const TransformersReleaseEntry* above = nullptr;
  for (const auto& e : kTransformersReleases) {
    const auto at = *major_minor(e.name);
    if (at < *wanted) below = &e;
    if (at > *wanted && !above) above = &e;
  }
  std::string nearest;
  if (below && above) {
    nearest = std::string("the nearest are ") + below->name + " and " + above->name;
  } else {
    nearest = std::string("the nearest is ") + (below ? below : above)->name;
  }
  // The rules to try: the recorded release of the same major version, the newer one first.
  const TransformersReleaseEntry* same = above && major_minor(above->name)->first == wanted->first ? above : below;
  const std::string give = (same ? same : above)->name;
  return "transformers " + name + " is not modelled: the releases recorded are " + transformers_releases_text() +
         " (golden/cases-trainer); " + nearest + " (give --transformers-version " + give +
         " to simulate its rules; a release between two recorded ones is not assumed to follow either" +
         (wanted->first == 5 ? "; golden/transformers-watch " + name + " records it)" : std::string(")"));
}

bool sets_epoch_before_skip(TransformersRelease release) { return release == TransformersRelease::v4_57; }

bool resume_fails_on_cpu_group(TransformersRelease release, std::int64_t resumed_world_size) {
  return release == TransformersRelease::v4_57 && resumed_world_size > 1;
}

bool finds_rng_state(std::int64_t saved_world_size, std::int64_t world_size, std::int64_t rank) {
  if (world_size <= 1) return saved_world_size <= 1;     // rng_state.pth
  return saved_world_size > 1 && rank < saved_world_size;  // rng_state_{rank}.pth
}

TrainerSchedule trainer_schedule(std::int64_t len_dataloader, const TrainerLoopOptions& o) {
  TrainerSchedule s;
  const std::int64_t ga = std::max<std::int64_t>(o.gradient_accumulation_steps, 1);
  s.gradient_accumulation_steps = ga;
  s.steps_in_epoch = len_dataloader;
  // set_initial_training_values tests `if len_dataloader:` (4.57 and 5.x alike): a loader of length 0 takes the
  // no-length branch, which needs max_steps > 0.
  if (len_dataloader == 0 && o.max_steps <= 0 && !mutant(Mutation::EmptyTrainLoaderTrains)) {
    throw AccelerateError(PyErrorType::ValueError, "train",
                          "args.max_steps must be set to a positive value if dataloader does not have a length, was " +
                              std::to_string(o.max_steps));
  }
  s.num_update_steps_per_epoch = std::max<std::int64_t>(len_dataloader / ga + (len_dataloader % ga > 0 ? 1 : 0), 1);
  if (o.max_steps > 0) {
    s.max_steps = o.max_steps;
    s.num_train_epochs =
        o.max_steps / s.num_update_steps_per_epoch + (o.max_steps % s.num_update_steps_per_epoch > 0 ? 1 : 0);
  } else {
    s.max_steps = o.num_train_epochs * s.num_update_steps_per_epoch;
    s.num_train_epochs = o.num_train_epochs;
  }
  return s;
}

TrainerRunCounts trainer_run_counts(const TrainerSchedule& schedule, std::int64_t batches_per_pass) {
  // run_trainer_loop syncs after micro-batch `step` of a pass when (step + 1) % GA == 0 or step + 1 == S (the
  // epoch's last, by len(train_dataloader)), so every pass of L batches syncs at the same positions: k times, the
  // last after position `last`; whatever follows it waits for the next pass's first sync.
  const std::int64_t ga = schedule.gradient_accumulation_steps, S = schedule.steps_in_epoch, L = batches_per_pass;
  const bool epoch_end_syncs = S >= 1 && S <= L && (S % ga != 0 || mutant(Mutation::TrainerCountsDropEpochEndSync));
  const std::int64_t k = L / ga + (epoch_end_syncs ? 1 : 0);
  const std::int64_t last = std::max(L / ga * ga - 1, epoch_end_syncs ? S - 1 : -1);
  TrainerRunCounts c;
  const std::int64_t possible = schedule.num_train_epochs * k;
  if (k > 0 && possible >= schedule.max_steps) {
    c.optimizer_steps = schedule.max_steps;  // the run stops right after its max_steps-th sync
  } else {
    c.optimizer_steps = possible;
    // No sync at all: every micro-batch of every pass is left; else what follows the last pass's last sync.
    c.unsynced_batches = k == 0 ? schedule.num_train_epochs * L : L - 1 - last;
  }
  c.first_pass_whole = L == 0 || (k > 0 && last == L - 1 && k <= schedule.max_steps);
  return c;
}

std::string iterable_needs_max_steps_message(TransformersRelease release) {
  if (release == TransformersRelease::v4_57) {
    return "The train_dataset does not implement __len__, max_steps has to be specified. The number of steps needs to "
           "be known in advance for the learning rate scheduler.";
  }
  return "The train_dataset does not implement __len__, so the number of training steps cannot be inferred; max_steps "
         "has to be specified. The total number of steps must be known in advance to bound the training loop and to "
         "configure the learning rate scheduler.";
}

TrainerSchedule trainer_schedule_without_length(std::int64_t batches_per_pass, const TrainerLoopOptions& o) {
  TrainerSchedule s;
  const std::int64_t ga = std::max<std::int64_t>(o.gradient_accumulation_steps, 1);
  s.gradient_accumulation_steps = ga;
  s.max_steps = std::max<std::int64_t>(o.max_steps, 1);
  s.num_update_steps_per_epoch = s.max_steps;
  s.steps_in_epoch = sat_mul(s.max_steps, ga);
  // The mutant ends every pass with a short step, as the loop with __len__ does.
  if (mutant(Mutation::IterablePassEndSyncs)) s.steps_in_epoch = batches_per_pass;
  const std::int64_t syncs = std::max<std::int64_t>(batches_per_pass / ga, 1);
  // Enough passes for max_steps from a fresh start, plus the resumed epoch and the one a G = max_steps resume adds.
  s.num_train_epochs = s.max_steps / syncs + 3;
  return s;
}

TrainerResumePosition resume_position(std::int64_t global_step, const TrainerSchedule& s, bool ignore_data_skip) {
  TrainerResumePosition p;
  p.global_step = global_step;
  p.ignore_data_skip = ignore_data_skip;
  p.epochs_trained = global_step / s.num_update_steps_per_epoch;
  if (!ignore_data_skip) {
    p.steps_trained_in_current_epoch = (global_step % s.num_update_steps_per_epoch) * s.gradient_accumulation_steps;
    if (mutant(Mutation::TrainerSkipIgnoresAccumulation)) p.steps_trained_in_current_epoch /= s.gradient_accumulation_steps;
  }
  return p;
}

}  // namespace accel
