// Small config builders the tests share: a user's map-style DataLoader, and a one-pass loader case.
#pragma once

#include <cstdint>

#include "core/prepare_data_loader.hpp"
#include "trace/trace.hpp"

namespace accel::testing {

inline DataLoaderArgs map_loader(std::int64_t len, std::int64_t batch, bool drop_last = false, bool shuffle = false) {
  DataLoaderArgs dl;
  dl.dataset_len = len;
  dl.batch_size = batch;
  dl.drop_last = drop_last;
  dl.shuffle = shuffle;
  return dl;
}

// One pass over the prepared loader of a sequential map-style dataset.
inline trace::LoaderCase map_case(std::int64_t ranks, std::int64_t len, std::int64_t batch) {
  trace::LoaderCase c;
  c.loader = map_loader(len, batch);
  c.prepare.num_processes = ranks;
  c.epochs = 1;
  c.schedule = {trace::LoaderRole::Prepared};
  return c;
}

}  // namespace accel::testing
