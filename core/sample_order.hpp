// The order in which one epoch's sampler visits sample ids, as an index-addressable view.
//
// A sequential order is implicit (id == position) and costs nothing; a shuffled order is stored once in
// 4 bytes per sample while ids fit 32 bits, and shared by every simulated rank. Positions past the end
// wrap onto the start of the epoch, which is how Accelerate pads (it cycles the epoch's first samples).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace accel {

class SampleOrder {
 public:
  static SampleOrder sequential(std::int64_t n) { return SampleOrder(n); }
  static SampleOrder of(std::vector<std::uint32_t> ids);
  static SampleOrder of(std::vector<std::int64_t> ids);

  std::int64_t size() const noexcept { return size_; }
  bool is_sequential() const noexcept { return !u32_ && !i64_; }

  std::int64_t operator[](std::int64_t pos) const noexcept {
    if (u32_) return (*u32_)[static_cast<std::size_t>(pos)];
    if (i64_) return (*i64_)[static_cast<std::size_t>(pos)];
    return pos;
  }

  // Position `vpos` of the epoch order extended by cycling its first `period` samples, the padding
  // rule BatchSamplerShard and IterableDatasetShard share. `period` must be > 0 when vpos >= size().
  std::int64_t padded(std::int64_t vpos, std::int64_t period) const noexcept {
    return (*this)[vpos < size_ ? vpos : (vpos - size_) % period];
  }

 private:
  explicit SampleOrder(std::int64_t n) : size_(n) {}
  std::int64_t size_ = 0;
  std::shared_ptr<const std::vector<std::uint32_t>> u32_;
  std::shared_ptr<const std::vector<std::int64_t>> i64_;
};

inline SampleOrder SampleOrder::of(std::vector<std::uint32_t> ids) {
  SampleOrder o(static_cast<std::int64_t>(ids.size()));
  o.u32_ = std::make_shared<const std::vector<std::uint32_t>>(std::move(ids));
  return o;
}

inline SampleOrder SampleOrder::of(std::vector<std::int64_t> ids) {
  SampleOrder o(static_cast<std::int64_t>(ids.size()));
  o.i64_ = std::make_shared<const std::vector<std::int64_t>>(std::move(ids));
  return o;
}

}  // namespace accel
