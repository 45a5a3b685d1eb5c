// The property runner: RapidCheck under GoogleTest, with the seed and a replay command on failure.
#include "property.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/detail/TestListenerAdapter.h>

#include <algorithm>
#include <iostream>
#include <sstream>

namespace accel::props {
namespace {

std::string& executable_path() {
  static std::string path = "build/props/props";
  return path;
}

}  // namespace

void set_executable(std::string path) { executable_path() = std::move(path); }
const std::string& executable() { return executable_path(); }

rc::detail::TestResult run_property(const std::string& id, Property property, bool expected_to_fail) {
  rc::detail::TestMetadata metadata;
  metadata.id = id;
  metadata.description = id;
  if (!expected_to_fail) return rc::detail::checkTestable(property, metadata);
  rc::detail::TestListenerAdapter quiet;
  return rc::detail::checkTestable(property, metadata, rc::detail::configuration().testParams, quiet);
}

std::uint64_t configured_seed() { return rc::detail::configuration().testParams.seed; }
int configured_cases() { return rc::detail::configuration().testParams.maxSuccess; }

std::string replay_command(const std::string& suite, const std::string& name) {
  std::ostringstream os;
  os << "RC_PARAMS=\"seed=" << configured_seed() << " max_success=" << configured_cases() << "\" " << executable()
     << " --gtest_filter=" << suite << "." << name;
  return os.str();
}

void check_property(const char* suite, const char* name, Property property) {
  const auto result = run_property(std::string(suite) + "/" + name, property);
  if (result.is<rc::detail::SuccessResult>()) {
    const auto& success = result.get<rc::detail::SuccessResult>();
    std::cout << "OK, passed " << success.numSuccess << " cases (seed " << configured_seed() << ")\n";
    for (const auto& [tags, count] : success.distribution) {  // RC_TAG: how the cases spread
      std::cout << "  " << 100.0 * count / std::max(1, success.numSuccess) << "% -";
      for (const auto& tag : tags) std::cout << " " << tag;
      std::cout << "\n";
    }
    return;
  }
  std::ostringstream os;
  rc::detail::printResultMessage(result, os);
  FAIL() << os.str() << "\nseed: " << configured_seed() << "\nreplay: " << replay_command(suite, name) << "\n";
}

}  // namespace accel::props
