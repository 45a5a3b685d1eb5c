// How broadcast_object's small object travels as int64 messages of a size every rank knows in
// advance: a fixed head of kObjectSlots values (the length, then the first values), and, only when
// the object is longer, a second message with the rest. Shared by the Gloo and NCCL transports.
#pragma once

#include <cstdint>
#include <vector>

namespace accel::ranks {

inline constexpr std::int64_t kObjectSlots = 16;

// The head message for `object`: its length, then up to kObjectSlots - 1 of its values, zero-padded.
std::vector<std::int64_t> object_head(const std::vector<std::int64_t>& object);
// The object's length, as the head says.
std::int64_t object_length(const std::vector<std::int64_t>& head);
// The object from its head and (when longer than the head holds) the rest.
std::vector<std::int64_t> object_from(const std::vector<std::int64_t>& head, const std::vector<std::int64_t>& rest);

}  // namespace accel::ranks
