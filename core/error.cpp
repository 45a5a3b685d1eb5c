#include "error.hpp"

namespace accel {

std::string_view python_name(PyErrorType type) noexcept {
  switch (type) {
    case PyErrorType::ValueError: return "ValueError";
    case PyErrorType::TypeError: return "TypeError";
    case PyErrorType::AttributeError: return "AttributeError";
    case PyErrorType::RuntimeError: return "RuntimeError";
    case PyErrorType::ZeroDivisionError: return "ZeroDivisionError";
  }
  return "Exception";
}

}  // namespace accel
