// The in-process N-rank simulator: runs every rank of a case through the core, in one process,
// deterministically, and records the trace the golden schema describes.
//
// Ranks that never talk (DataLoaderShard without rng synchronisation) run one after another. Ranks
// that do (DataLoaderDispatcher, synchronised generators) make the same collectives a real job makes,
// scheduled one rank after another by a SequentialGroup (their collectives all carry rank 0's data);
// a collective that cannot complete is reported on the ranks that wait in it (error type "Hang"),
// never waited on.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/communicator.hpp"
#include "core/data_loader_shard.hpp"
#include "core/draw_memo.hpp"
#include "core/error.hpp"
#include "trace/trace.hpp"

namespace accel::sim {

trace::Trace simulate(const trace::LoaderCase& config);
trace::Trace simulate(const trace::BatchSamplerShardCase& config);
trace::Trace simulate(const trace::RandpermCase& config);

// Every rank of a loader case run on its own thread over an InProcessGroup: the reference the
// sequential schedule is checked against (props), and its fall-back. Rethrows the lowest rank's failure.
std::vector<trace::RankRecord> simulate_ranks_threaded(const trace::LoaderCase& config);

// Any parsed config, whatever its family.
trace::Trace simulate_case(const trace::CaseConfig& config);

// One rank of a loader case. `comm` is required when the loader makes collectives. `draws`, shared by
// the ranks of one job, lets ranks that draw the same epoch order draw it once.
trace::RankRecord simulate_rank(const trace::LoaderCase& config, std::int64_t rank, Communicator* comm = nullptr,
                                std::shared_ptr<DrawMemo> draws = nullptr);

// The options the script passes by name that its release does not have: Accelerator(...) (api "accelerator") or
// prepare_data_loader(...) raises AccelerateError(TypeError) for the first, before anything else runs.
void check_release_keywords(const trace::LoaderCase& config);

// torch.initial_seed() of rank r's process. With torch_manual_seed the user's seed (plus the rank with
// seed_per_rank); without it torch seeds every process from the OS, so each rank gets its own
// unpredictable seed, stood in for here by a fixed per-rank value (the order is one possible run).
std::uint64_t process_seed(const trace::LoaderCase& config, std::int64_t rank);

// Rank `rank`'s loader as the job's prepare returns it, seeded as that process is; nullopt when it is a
// DataLoaderDispatcher (the simulators of whole jobs that read it rank by rank model DataLoaderShard only).
std::optional<DataLoaderShard> prepared_shard(const trace::LoaderCase& job, std::int64_t rank);

// Whether the ranks of this case draw different epoch orders (an unsynchronised shuffle whose process
// seeds differ), so no single order describes the job.
bool ranks_shuffle_differently(const trace::LoaderCase& config);

// A configuration error as the user's script meets it (rank not set): through Accelerator.prepare and
// set_seed when the script uses an Accelerator, through prepare_data_loader and torch.manual_seed when it
// calls them itself.
trace::ErrorRecord case_error(const trace::LoaderCase& config, const AccelerateError& e);

// Whether a case-level error names the rank that raised it: jobs of real processes do (multiprocess,
// or ranks that must talk), as the golden recorder's gloo runs show.
bool reports_error_rank(const trace::LoaderCase& config);

// Whether simulating this case needs the ranks to communicate.
bool needs_communicator(const trace::LoaderCase& config);

// A training loop that makes one collective per step (gather_for_metrics / a DDP all-reduce) over the
// prepared loader, for every pass of the case: where ranks that fall out of lock-step would hang.
struct LockstepRank {
  std::int64_t rank = 0;
  std::vector<std::int64_t> steps_per_epoch;  // steps completed in each pass
  std::optional<std::string> hang;            // why this rank would block forever, if it would
  std::optional<std::int64_t> hang_epoch;
  std::optional<std::int64_t> hang_step;      // step index within hang_epoch
};

std::vector<LockstepRank> simulate_lockstep(const trace::LoaderCase& config);

}  // namespace accel::sim
