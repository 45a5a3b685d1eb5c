// The sample ids of one kind (dropped, duplicated) as runs of consecutive ids, in the order they were
// found, up to a cap on the number of runs: 176 contiguous dropped ids are one run "0-175", where a
// list capped at a count of ids would stop at "0-31, ...".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "batch.hpp"

namespace accel {

struct IdRange {
  SampleId first = 0;
  SampleId last = 0;  // inclusive
  friend bool operator==(const IdRange&, const IdRange&) = default;
};

class IdRanges {
 public:
  static constexpr std::size_t kDefaultMaxRanges = 32;
  explicit IdRanges(std::size_t max_ranges = kDefaultMaxRanges) : max_ranges_(max_ranges) {}
  std::size_t max_ranges() const noexcept { return max_ranges_; }

  // Appends `id`, extending the last run when it follows it. False when a new run would pass the cap;
  // from then on every id is refused, so the runs held are always a prefix of the ids offered.
  bool add(SampleId id) { return add_run(id, id); }
  // Appends the consecutive ids [first, last].
  bool add_run(SampleId first, SampleId last);
  // Appends `other`'s runs while they fit; closed when they do not all fit or `other` was.
  void append(const IdRanges& other);
  // An id was refused (or an appended list had been cut): every later one will be.
  bool closed() const noexcept { return closed_; }

  const std::vector<IdRange>& ranges() const noexcept { return ranges_; }
  bool empty() const noexcept { return ranges_.empty(); }
  std::int64_t count() const noexcept { return count_; }  // ids held
  // The first `n` ids held, in order (for lists that name single ids).
  std::vector<SampleId> first_ids(std::size_t n) const;

  friend bool operator==(const IdRanges& a, const IdRanges& b) { return a.ranges_ == b.ranges_; }

 private:
  std::size_t max_ranges_;
  std::vector<IdRange> ranges_;
  std::int64_t count_ = 0;
  bool closed_ = false;
};

// "0-175", "3, 5, 9-12", with ", ..." when `total` says more ids exist than are held. Two consecutive
// ids read "5, 6", not "5-6".
std::string format_id_ranges(const IdRanges& ids, std::int64_t total);
// The same, with ", ..." when an id was refused: for lists that were offered every id.
std::string format_id_ranges(const IdRanges& ids);

}  // namespace accel
