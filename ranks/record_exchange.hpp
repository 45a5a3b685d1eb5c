// How rank 0 learns what every rank saw: each rank posts its outcome (its RankRecord in trace JSON,
// or the configuration error its prepare_data_loader raised) to the store, and rank 0 assembles the
// job's trace in the golden schema, the same document the in-process simulator writes.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "key_value_store.hpp"
#include "peer_monitor.hpp"
#include "sim/ddp_training.hpp"
#include "trace/trace.hpp"
#include "trace/trace_json.hpp"

namespace accel::ranks {

// One rank's outcome as JSON: {"rank", "error" (a configuration error, or null), "record" (or null)}.
trace::Json outcome_json(const trace::Json& config, std::int64_t rank, const std::optional<trace::RankRecord>& record,
                         const std::optional<trace::ErrorRecord>& case_error);

// The training loop's outcome of one rank (where it blocked, its collectives), to post beside its record:
// rank 0 rebuilds every rank's to judge the job as the simulator judges its prediction.
trace::Json training_json(const sim::TrainingRank& rank);
sim::TrainingRank training_from_json(const trace::Json& j);

void post_outcome(KeyValueStore& store, std::int64_t rank, const trace::Json& outcome);

// Rank 0: every rank's outcome, in rank order; waits while the ranks live (PeerFailure if one dies).
std::vector<trace::Json> collect_outcomes(KeyValueStore& store, PeerMonitor& monitor);

// The end of a job. Ranks other than 0 wait, after posting, until rank 0 has every record (so a rank
// that dies late still fails everyone, named), acknowledge, and exit; rank 0 waits for the
// acknowledgements before it exits, since it hosts the store they read.
void announce_complete(KeyValueStore& store);
void await_complete(KeyValueStore& store, PeerMonitor& monitor);
void acknowledge(KeyValueStore& store, std::int64_t rank);
// `bound`: give up waiting (and return) after this long, for a rank 0 that failed after announcing.
void await_acknowledgements(KeyValueStore& store, PeerMonitor& monitor,
                            std::optional<std::chrono::milliseconds> bound = std::nullopt);

struct TraceOrigin {
  std::string case_name = "cli";
  std::optional<std::string> family;  // the input file's, when it had one
  std::string backend;
  std::int64_t world_size = 1;
};

// The job's trace: a configuration error (the lowest rank's, as the simulator reports rank 0's) or
// every rank's record; `reference` says it came from real ranks (the diff ignores it).
trace::Json assemble_trace(const trace::Json& config, bool error_names_rank, const std::vector<trace::Json>& outcomes,
                           const TraceOrigin& origin);

}  // namespace accel::ranks
