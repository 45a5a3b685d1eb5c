// A loader attribute that Accelerate may raise for instead of returning (len(), total_batch_size, ...).
//
// The simulator must report such raises, not hide them: a skipped map loader's total_batch_size raises
// AttributeError, and with it GradientState's remainder silently stays -1.
#pragma once

#include <string>
#include <variant>

#include "error.hpp"

namespace accel {

struct AttributeFailure {
  PyErrorType type;
  std::string message;
  friend bool operator==(const AttributeFailure&, const AttributeFailure&) = default;
};

template <typename T>
class Attribute {
 public:
  Attribute(T value) : v_(std::move(value)) {}                 // NOLINT(google-explicit-constructor)
  Attribute(AttributeFailure failure) : v_(std::move(failure)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const noexcept { return std::holds_alternative<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  const AttributeFailure& failure() const { return std::get<AttributeFailure>(v_); }
  T value_or(T fallback) const { return ok() ? value() : fallback; }

 private:
  std::variant<T, AttributeFailure> v_;
};

}  // namespace accel
