// accel-sim core: the typed error every core component raises.
//
// Accelerate signals misuse with Python exceptions whose class matters to users (a ValueError from
// prepare_data_loader is a config bug, a TypeError from a broadcast is a runtime stall). The core keeps
// that class as data so a trace written by the simulator compares with one recorded from Accelerate.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace accel {

enum class PyErrorType {
  ValueError,
  TypeError,
  AttributeError,
  RuntimeError,
  ZeroDivisionError,
  IndexError,
  ImportError,
  KeyError,
  AssertionError
};

std::string_view python_name(PyErrorType type) noexcept;
// The type python_name names ("ValueError" -> ValueError), for errors carried as data (a trace's error record).
std::optional<PyErrorType> py_error_type(std::string_view name) noexcept;

class AccelerateError : public std::runtime_error {
 public:
  AccelerateError(PyErrorType type, std::string where, std::string message)
      : std::runtime_error(message), type_(type), where_(std::move(where)) {}

  PyErrorType type() const noexcept { return type_; }
  // The Accelerate entry point that raised it ("prepare_data_loader", "iterate", ...).
  const std::string& where() const noexcept { return where_; }
  std::string message() const { return what(); }

 private:
  PyErrorType type_;
  std::string where_;
};

// A configuration whose outcome the core does not model, rather than a guess: callers refuse it as not simulated.
class NotModelled : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace accel
