// prepare_data_loader's errors: raised for the same configs as Accelerate, with the same meaning.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/prepare_data_loader.hpp"
#include "tests/support/loader_configs.hpp"

namespace accel {
namespace {

using testing::map_loader;

AccelerateError error_of(DataLoaderArgs dl, PrepareOptions po) {
  try {
    prepare_data_loader(dl, po);
  } catch (const AccelerateError& e) {
    return e;
  }
  ADD_FAILURE() << "no error raised";
  return AccelerateError(PyErrorType::RuntimeError, "", "");
}

TEST(PrepareDataLoader, SplitBatchesNeedsAMultipleOfTheRanks) {
  PrepareOptions po;
  po.num_processes = 4;
  po.split_batches = true;
  const auto e = error_of(map_loader(10, 6), po);
  EXPECT_EQ(e.type(), PyErrorType::ValueError);
  EXPECT_EQ(e.where(), "prepare_data_loader");
  EXPECT_NE(e.message().find("batch size (6)"), std::string::npos);
  EXPECT_NE(e.message().find("number of processes (4)"), std::string::npos);
}

TEST(PrepareDataLoader, BatchSizeOneSlipsPastTheFirstCheckButNotTheShard) {
  PrepareOptions po;
  po.num_processes = 3;
  po.split_batches = true;
  const auto e = error_of(map_loader(10, 1), po);
  EXPECT_NE(e.message().find("BatchSamplerShard"), std::string::npos);
  po.num_processes = 1;  // one process: no shard, nothing to reject
  EXPECT_NO_THROW(prepare_data_loader(map_loader(10, 1), po));
}

TEST(PrepareDataLoader, DispatchNeedsPutOnDevice) {
  PrepareOptions po;
  po.dispatch_batches = true;
  const auto e = error_of(map_loader(10, 2), po);
  EXPECT_NE(e.message().find("put_on_device=True"), std::string::npos);
}

TEST(PrepareDataLoader, RejectsNonPositiveBatchSize) {
  const auto e = error_of(map_loader(10, 0), PrepareOptions{});
  EXPECT_EQ(e.type(), PyErrorType::ValueError);
}

}  // namespace
}  // namespace accel
