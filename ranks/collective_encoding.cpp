#include "collective_encoding.hpp"

#include <algorithm>
#include <stdexcept>

namespace accel::ranks {

std::vector<std::int64_t> object_head(const std::vector<std::int64_t>& object) {
  std::vector<std::int64_t> head(static_cast<std::size_t>(kObjectSlots), 0);
  head[0] = static_cast<std::int64_t>(object.size());
  std::copy_n(object.begin(), std::min<std::size_t>(object.size(), kObjectSlots - 1), head.begin() + 1);
  return head;
}

std::int64_t object_length(const std::vector<std::int64_t>& head) {
  if (head.size() != static_cast<std::size_t>(kObjectSlots) || head[0] < 0) {
    throw std::invalid_argument("broadcast_object: malformed head message");
  }
  return head[0];
}

std::vector<std::int64_t> object_from(const std::vector<std::int64_t>& head, const std::vector<std::int64_t>& rest) {
  const std::int64_t length = object_length(head);
  std::vector<std::int64_t> object(head.begin() + 1, head.begin() + 1 + std::min(length, kObjectSlots - 1));
  object.insert(object.end(), rest.begin(), rest.end());
  if (static_cast<std::int64_t>(object.size()) != length) {
    throw std::invalid_argument("broadcast_object: the rest of the object has the wrong length");
  }
  return object;
}

}  // namespace accel::ranks
