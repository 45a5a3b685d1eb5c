// Epoch orders already drawn, for simulated ranks that would draw the same one again.
//
// A draw (a sampler's epoch order, an iterable dataset's randperm) is a pure function of what is drawn
// (its size, replacement, the torch whose shuffle it reproduces) and the generator's state before it: the
// state after it follows too. Ranks that share an epoch order (a seedable sampler with data_seed, a
// synchronised generator, the same torch seed on every rank) make the same draw from the same state, so
// the first rank draws it and every later one takes the stored order and the generator state after it,
// O(1) instead of O(N): a trace of R ranks costs one permutation per epoch, not R.
//
// The memo is passed to the loaders explicitly (no global state) and holds at most `budget_ids` ids, past
// which orders are drawn again rather than stored: the memory stays bounded, the orders exact.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>

#include "randperm.hpp"
#include "sample_order.hpp"
#include "torch_generator.hpp"

namespace accel {

class DrawMemo {
 public:
  enum class Source { Sampler, DatasetRandperm };
  struct Key {
    Source source = Source::Sampler;
    std::int64_t dataset_len = 0;
    std::int64_t count = 0;  // ids drawn (a RandomSampler's num_samples)
    bool replacement = false;
    TorchVersion torch_version = TorchVersion::v2_6;
    GeneratorState before;
    friend bool operator<(const Key& a, const Key& b) {
      return std::tie(a.source, a.dataset_len, a.count, a.replacement, a.torch_version, a.before.seed, a.before.draws) <
             std::tie(b.source, b.dataset_len, b.count, b.replacement, b.torch_version, b.before.seed, b.before.draws);
    }
  };

  explicit DrawMemo(std::int64_t budget_ids = std::int64_t{1} << 28) : budget_(budget_ids) {}

  // The order `draw(gen)` gives from gen's state (which `key.before` must be), leaving gen where the draw
  // leaves it. Safe to call from several threads; a draw that throws is not stored.
  SampleOrder draw(const Key& key, TorchGenerator& gen, const std::function<SampleOrder(TorchGenerator&)>& draw);

 private:
  struct Drawn {
    SampleOrder order;
    GeneratorState after;
  };
  std::mutex mu_;
  std::map<Key, Drawn> drawn_;
  std::int64_t budget_;
  std::int64_t stored_ = 0;
};

}  // namespace accel
