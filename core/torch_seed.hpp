// Seeds as a Python script hands them to torch's manual_seed: Python integers, which never wrap.
//
// torch unpacks a seed first as an unsigned 64-bit value and, when that overflows, as a signed one whose
// two's complement it keeps; anything outside [-2^63, 2^64) raises RuntimeError("Overflow when unpacking
// long") at the call. Seeds that are sums in Python (SeedableRandomSampler's initial_seed + epoch,
// set_seed(seed + process_index)) are therefore formed exactly here and unpacked only where torch
// unpacks them, so an overflow is raised where and when torch raises it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "error.hpp"
#include "randperm.hpp"

namespace accel {

// A Python int wide enough for every seed a config can hold plus any epoch or rank added to it.
using PythonInt = __int128;

inline constexpr PythonInt kTorchSeedMin = -(PythonInt{1} << 63);
inline constexpr PythonInt kTorchSeedEnd = PythonInt{1} << 64;  // first value torch cannot unpack



// The 64-bit seed torch stores for manual_seed(v), or nullopt where torch raises.
constexpr std::optional<std::uint64_t> unpack_torch_seed(PythonInt v) noexcept {
  if (v < kTorchSeedMin || v >= kTorchSeedEnd) return std::nullopt;
  return static_cast<std::uint64_t>(v);  // two's complement of a negative seed, as torch keeps it
}

// manual_seed(v)'s stored seed; raises what torch raises (reported at `where`) when v does not fit:
// torch 1.13's RuntimeError("Overflow when unpacking long"), current torch's ValueError("Overflow when
// unpacking long long").
inline std::uint64_t torch_seed_or_raise(PythonInt v, const std::string& where, TorchVersion torch) {
  const auto seed = unpack_torch_seed(v);
  if (!seed) {
    if (torch == TorchVersion::v1_13) throw AccelerateError(PyErrorType::RuntimeError, where, "Overflow when unpacking long");
    throw AccelerateError(PyErrorType::ValueError, where, "Overflow when unpacking long long");
  }
  return *seed;
}

// Accelerate's set_seed(v) seeds Python's random, then numpy's legacy generator, then torch: numpy's
// np.random.seed takes only [0, 2^32 - 1] and raises before torch is seeded, so set_seed(-1) or
// set_seed(2^32) fails where torch.manual_seed alone would not.
inline void check_set_seed_numpy(PythonInt v, const std::string& where) {
  if (v < 0 || v > PythonInt{0xFFFFFFFF}) {
    throw AccelerateError(PyErrorType::ValueError, where, "Seed must be between 0 and 2**32 - 1");
  }
}

inline std::string to_string(PythonInt v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  // Digits of the magnitude, built from the low end; unsigned so that the most negative value works.
  unsigned __int128 m = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (m != 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  }
  return negative ? "-" + digits : digits;
}

}  // namespace accel
