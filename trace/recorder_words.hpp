// How the golden recorders word what they observed rather than what the library raised: a rank still blocked when
// the recorder's timeout ran out (golden/reference/trainer.py waits 300 s, trainer_eval.py 90 s) is killed and
// recorded as a "Hang" with this message. The simulator writes the same words where it predicts a hang.
#pragma once

#include <cstdint>
#include <string>

namespace accel::trace {

inline constexpr int kTrainerRecorderTimeoutS = 300;
inline constexpr int kTrainerEvalRecorderTimeoutS = 90;

inline std::string recorder_hang_message(std::int64_t rank, int timeout_s) {
  return "rank " + std::to_string(rank) + " was still running after " + std::to_string(timeout_s) +
         " s (blocked, e.g. in a collective the other ranks never joined) and was killed";
}

}  // namespace accel::trace
