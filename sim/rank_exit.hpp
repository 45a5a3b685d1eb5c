// What a rank whose script has ended means to the ranks still in a collective with it.
//
// The recorder's loader ranks (and a user's script that dies on an exception) end their process when the script
// ends, and the process's gloo connections close with it: a rank waiting for that peer's broadcast, or entering one
// afterwards, fails at once with gloo's RuntimeError (recorded: golden/cases-releases/*/rel-workers-stateful-*, where
// rank 0 raises on every pass and rank 1's every pass fails so). A script that goes on to a collective of its own
// after its loop instead keeps the connection and the waiting ranks hang (the metrics and Trainer recorders).
#pragma once

#include <cstdint>

#include "core/error.hpp"

namespace accel::sim {

enum class RankExit {
  KeepsConnection,  // the ranks waiting for it hang (CollectiveError)
  ClosesConnection  // the ranks waiting for it (the root rank 0 only) get gloo's "Connection closed by peer"
};

// gloo's error for a collective whose peer has closed its connection; the source location and the peer's address
// and port are the recorder's machine's (trace_diff compares the message without them).
inline AccelerateError connection_closed_by_peer() {
  return AccelerateError(PyErrorType::RuntimeError, "iterate",
                         "[gloo/transport/tcp/pair.cc] Connection closed by peer [rank 0]:port. This is typically "
                         "caused by a remote worker crashing. Check the logs of the remote worker before reporting an "
                         "error. GLHF! \xF0\x9F\x8F\x96\xEF\xB8\x8F");
}

}  // namespace accel::sim
