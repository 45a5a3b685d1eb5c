// The order in which one epoch's sampler visits sample ids, as an index-addressable view.
//
// A sequential order is implicit (id == position) and costs nothing; a shuffled order is stored once in
// 4 bytes per sample while ids fit 32 bits, and shared by every simulated rank. Positions past the end
// wrap onto the start of the epoch, which is how Accelerate pads (it cycles the epoch's first samples).
//
// The storage is reached through raw pointers (the shared owner only keeps it alive), and loops that
// read many ids use copy_padded() or visit(), which pick the storage once per range rather than once
// per id.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "batch.hpp"
#include "id_allocator.hpp"

namespace accel {

class SampleOrder {
 public:
  // visit()'s argument for an implicit order: the id at position p is p.
  struct Sequential {
    std::int64_t operator[](std::int64_t pos) const noexcept { return pos; }
  };

  static SampleOrder sequential(std::int64_t n) { return SampleOrder(n); }
  static SampleOrder of(std::vector<std::uint32_t> ids) { return own(std::move(ids)); }
  static SampleOrder of(std::vector<std::int64_t> ids) { return own(std::move(ids)); }
  static SampleOrder of(IdVector32 ids) { return own(std::move(ids)); }
  static SampleOrder of(IdVector64 ids) { return own(std::move(ids)); }

  std::int64_t size() const noexcept { return size_; }
  bool is_sequential() const noexcept { return !u32_ && !i64_; }

  std::int64_t operator[](std::int64_t pos) const noexcept {
    if (u32_) return u32_[pos];
    if (i64_) return i64_[pos];
    return pos;
  }

  // Position `vpos` of the epoch order extended by cycling its first `period` samples, the padding
  // rule BatchSamplerShard and IterableDatasetShard share. `period` must be > 0 when vpos >= size().
  std::int64_t padded(std::int64_t vpos, std::int64_t period) const noexcept {
    return (*this)[vpos < size_ ? vpos : (vpos - size_) % period];
  }

  // f(Sequential{}), f(const std::uint32_t*) or f(const std::int64_t*): one call, so a loop inside f
  // indexes the storage directly.
  template <typename F>
  decltype(auto) visit(F&& f) const {
    if (u32_) return f(u32_);
    if (i64_) return f(i64_);
    return f(Sequential{});
  }

  // The order read through a dataset's index map: position p holds example map[(*this)[p]] (a shuffled
  // datasets.Dataset hands out row map[i] for index i). `map` covers every id of the order.
  SampleOrder through(const std::vector<std::int64_t>& map) const {
    std::vector<std::int64_t> ids(static_cast<std::size_t>(size_));
    for (std::int64_t p = 0; p < size_; ++p) ids[static_cast<std::size_t>(p)] = map[static_cast<std::size_t>((*this)[p])];
    return of(std::move(ids));
  }

  // Writes the ids at positions [begin, end) of the order (all < size()) to `out`.
  void copy(std::int64_t begin, std::int64_t end, SampleId* out) const noexcept {
    const std::int64_t n = end - begin;
    if (u32_) {
      for (std::int64_t k = 0; k < n; ++k) out[k] = u32_[begin + k];
    } else if (i64_) {
      std::memcpy(out, i64_ + begin, static_cast<std::size_t>(n) * sizeof(SampleId));
    } else {
      for (std::int64_t k = 0; k < n; ++k) out[k] = begin + k;
    }
  }

  // Writes the ids at padded positions [begin, end) to `out` (see padded()).
  void copy_padded(std::int64_t begin, std::int64_t end, std::int64_t period, SampleId* out) const noexcept {
    std::int64_t p = begin;
    if (p < size_ && p < end) {
      const std::int64_t e = std::min(end, size_);
      copy(p, e, out);
      out += e - p;
      p = e;
    }
    while (p < end) {  // the padding cycles order positions [0, period)
      const std::int64_t offset = (p - size_) % period;
      const std::int64_t take = std::min(end - p, period - offset);
      copy(offset, offset + take, out);
      out += take;
      p += take;
    }
  }

 private:
  explicit SampleOrder(std::int64_t n) : size_(n) {}

  template <typename Vector>
  static SampleOrder own(Vector ids) {
    auto owned = std::make_shared<const Vector>(std::move(ids));
    SampleOrder o(static_cast<std::int64_t>(owned->size()));
    if constexpr (sizeof(typename Vector::value_type) == 4) {
      o.u32_ = owned->data();
    } else {
      o.i64_ = owned->data();
    }
    o.owner_ = std::move(owned);
    return o;
  }

  std::int64_t size_ = 0;
  const std::uint32_t* u32_ = nullptr;
  const std::int64_t* i64_ = nullptr;
  std::shared_ptr<const void> owner_;  // keeps the storage alive; shared by every copy
};

}  // namespace accel
