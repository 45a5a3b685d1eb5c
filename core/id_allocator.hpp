// The allocator behind large id arrays (shuffled orders, multiplicity maps).
//
// Two things a plain std::vector costs at a billion samples and we do not want: it value-initialises
// every element (a full extra pass writing gigabytes that the shuffle overwrites anyway), and with 4 KiB
// pages a random access into a 4 GB permutation misses the TLB almost every time. IdAllocator leaves
// elements uninitialised (vector(n) reserves and constructs nothing), asks Linux for transparent huge
// pages on large blocks and faults them in up front; elsewhere it is an ordinary aligned allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace accel {

template <typename T>
class IdAllocator {
  static_assert(std::is_trivially_default_constructible_v<T>, "only for plain ids and counters");

 public:
  using value_type = T;
  IdAllocator() noexcept = default;
  template <typename U>
  IdAllocator(const IdAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugeThreshold) return static_cast<T*>(::operator new(bytes));
    // Aligned to a huge page so the block can be backed by huge pages from its first byte.
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP it still works, just slower
#endif
    // Fault every page in now, in one sequential sweep: first touches scattered through a shuffle's hot
    // loop cost far more (measured: ~1 s of system time per GB inside the inside-out loop, ~0.05 s here).
    auto* bytes_p = static_cast<unsigned char*>(p);
    for (std::size_t off = 0; off < rounded; off += kPage) bytes_p[off] = 0;
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugeThreshold) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }

  // Default construction leaves the element uninitialised: callers write every element they read.
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  friend bool operator==(const IdAllocator&, const IdAllocator&) noexcept { return true; }

 private:
  static constexpr std::size_t kPage = 4096;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kHugeThreshold = kHugePage;  // from one huge page up
};

// A shuffled order's ids, 4 bytes each while the dataset has fewer than 2^32 samples.
using IdVector32 = std::vector<std::uint32_t, IdAllocator<std::uint32_t>>;
using IdVector64 = std::vector<std::int64_t, IdAllocator<std::int64_t>>;

}  // namespace accel
