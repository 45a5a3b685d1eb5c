#include "error.hpp"

namespace accel {

std::string_view python_name(PyErrorType type) noexcept {
  switch (type) {
    case PyErrorType::ValueError: return "ValueError";
    case PyErrorType::TypeError: return "TypeError";
    case PyErrorType::AttributeError: return "AttributeError";
    case PyErrorType::RuntimeError: return "RuntimeError";
    case PyErrorType::ZeroDivisionError: return "ZeroDivisionError";
    case PyErrorType::IndexError: return "IndexError";
    case PyErrorType::ImportError: return "ImportError";
    case PyErrorType::KeyError:
      return "KeyError";
    case PyErrorType::AssertionError:
      return "AssertionError";
  }
  return "Exception";
}

std::optional<PyErrorType> py_error_type(std::string_view name) noexcept {
  for (PyErrorType t : {PyErrorType::ValueError, PyErrorType::TypeError, PyErrorType::AttributeError,
                        PyErrorType::RuntimeError, PyErrorType::ZeroDivisionError, PyErrorType::IndexError,
                        PyErrorType::ImportError, PyErrorType::KeyError, PyErrorType::AssertionError}) {
    if (python_name(t) == name) return t;
  }
  return std::nullopt;
}

}  // namespace accel
