// The test-only fault of `--die-at-step K`: a Communicator decorator that makes this rank exit
// abruptly (_exit(3), no goodbye to anyone) just before its K-th batch collective (broadcast or
// all_gather of a batch, or a training step's all_reduce; counting from 0), as a crashed or OOM-killed rank would. Loaders that make no
// per-batch collective die after their loop instead (die_now), before sharing their record.
#pragma once

#include <cstdint>

#include "core/communicator.hpp"

namespace accel::ranks {

inline constexpr int kDiedExitCode = 3;

class FaultInjector final : public Communicator {
 public:
  FaultInjector(Communicator& inner, std::int64_t die_at_step) : inner_(inner), die_at_(die_at_step) {}

  std::int64_t rank() const override { return inner_.rank(); }
  std::int64_t world_size() const override { return inner_.world_size(); }
  std::vector<std::int64_t> broadcast_object(std::vector<std::int64_t> object, std::int64_t root) override {
    return inner_.broadcast_object(std::move(object), root);
  }
  Batch broadcast(Batch batch, std::int64_t root) override;
  std::vector<Batch> all_gather(const Batch& batch) override;
  std::vector<std::int64_t> all_reduce(const std::vector<std::int64_t>& values) override;
  void barrier() override { inner_.barrier(); }

  [[noreturn]] void die_now() const;

 private:
  void step();

  Communicator& inner_;
  std::int64_t die_at_;
  std::int64_t steps_ = 0;
};

}  // namespace accel::ranks
