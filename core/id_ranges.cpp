// Runs of consecutive sample ids, capped by count of runs.
#include "id_ranges.hpp"

#include <sstream>

namespace accel {

bool IdRanges::add_run(SampleId first, SampleId last) {
  if (last < first) return !closed_;
  if (closed_) return false;
  if (!ranges_.empty() && ranges_.back().last + 1 == first) {
    ranges_.back().last = last;
  } else {
    if (ranges_.size() >= max_ranges_) {
      closed_ = true;
      return false;
    }
    ranges_.push_back({first, last});
  }
  count_ += last - first + 1;
  return true;
}

void IdRanges::append(const IdRanges& other) {
  for (const IdRange& r : other.ranges_) {
    if (!add_run(r.first, r.last)) return;
  }
  if (other.closed_) closed_ = true;
}

std::vector<SampleId> IdRanges::first_ids(std::size_t n) const {
  std::vector<SampleId> out;
  for (const IdRange& r : ranges_) {
    for (SampleId id = r.first; id <= r.last && out.size() < n; ++id) out.push_back(id);
    if (out.size() >= n) break;
  }
  return out;
}

std::string format_id_ranges(const IdRanges& ids) {
  return format_id_ranges(ids, ids.count() + (ids.closed() ? 1 : 0));
}

std::string format_id_ranges(const IdRanges& ids, std::int64_t total) {
  std::ostringstream os;
  const char* sep = "";
  for (const IdRange& r : ids.ranges()) {
    os << sep << r.first;
    if (r.last > r.first) os << (r.last == r.first + 1 ? ", " : "-") << r.last;
    sep = ", ";
  }
  if (total > ids.count()) os << sep << "...";
  return os.str();
}

}  // namespace accel
