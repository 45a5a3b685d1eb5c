// Accelerator(...).prepare(dataloader): the one place where the options a user gives an Accelerator become
// the keyword arguments its prepare_data_loader call receives (Accelerate 1.15.0, accelerator.py:
// Accelerator.__init__ and Accelerator.prepare_data_loader; utils/dataclasses.py: DataLoaderConfiguration).
//
// The Accelerator's defaults differ from prepare_data_loader's, and that difference is what users run:
// device_placement=True (so an iterable dataset is dispatched), rng_types=["generator"] (a RandomSampler's
// generator is synchronised from rank 0 every pass), use_seedable_sampler=False (a --shuffle is torch's
// RandomSampler). Everything downstream reads the PrepareOptions this resolves to.
#pragma once

#include <cstdint>
#include <optional>

#include "prepare_data_loader.hpp"
#include "torch_seed.hpp"

namespace accel {

// DataLoaderConfiguration's fields with their defaults. non_blocking changes only how batches are copied
// to the device, never which samples a rank sees; use_stateful_dataloader swaps torch's DataLoader for
// torchdata's StatefulDataLoader, which yields the same batches on a pass from the start.
struct DataLoaderConfiguration {
  bool split_batches = false;
  std::optional<bool> dispatch_batches;  // None: dispatch iterable datasets when batches go to the device
  bool even_batches = true;
  bool use_seedable_sampler = false;
  std::optional<PythonInt> data_seed;
  bool non_blocking = false;
  bool use_stateful_dataloader = false;
  friend bool operator==(const DataLoaderConfiguration&, const DataLoaderConfiguration&) = default;
};

struct AcceleratorOptions {
  bool device_placement = true;
  // rng_types=None means ["generator"]; an explicit list without "generator" (e.g. []) turns the
  // synchronisation off. Only "generator" reaches the samplers this project models.
  std::optional<bool> rng_types_include_generator;
  DataLoaderConfiguration dataloader_config;
  // distributed_type XLA: prepare_data_loader gets device_placement=False.
  bool xla = false;
  friend bool operator==(const AcceleratorOptions&, const AcceleratorOptions&) = default;
};

// The prepare_data_loader arguments Accelerator.prepare_data_loader passes for this process.
inline PrepareOptions prepare_options_of(const AcceleratorOptions& a, std::int64_t num_processes,
                                         std::int64_t process_index) {
  PrepareOptions p;
  p.num_processes = num_processes;
  p.process_index = process_index;
  p.put_on_device = a.device_placement && !a.xla;
  p.synchronize_generator = a.rng_types_include_generator.value_or(true);
  p.split_batches = a.dataloader_config.split_batches;
  p.dispatch_batches = a.dataloader_config.dispatch_batches;
  p.even_batches = a.dataloader_config.even_batches;
  p.use_seedable_sampler = a.dataloader_config.use_seedable_sampler;
  p.data_seed = a.dataloader_config.data_seed;
  p.use_stateful_dataloader = a.dataloader_config.use_stateful_dataloader;
  return p;
}

}  // namespace accel
