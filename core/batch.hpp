// A batch as the simulator sees it: the sample ids it holds, in order (a dataset's sample is its index).
#pragma once

#include <cstdint>
#include <vector>

namespace accel {

using SampleId = std::int64_t;
using Batch = std::vector<SampleId>;

}  // namespace accel
