// Entry point of both property binaries (props, props_mutants). `--cases N` runs N cases per property
// (default 1000; RapidCheck's max_success); any other argument goes to GoogleTest. The seed RapidCheck
// uses is printed up front, and every failure prints the command that replays it (RC_PARAMS="seed=...").
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "property.hpp"

int main(int argc, char** argv) {
  std::string cases = "1000";
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cases") == 0 && i + 1 < argc) {
      cases = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  const char* given = std::getenv("RC_PARAMS");
  std::string params = given ? given : "";
  if (params.find("max_success") == std::string::npos) {
    // Appended piecewise: `"..." + std::string(...)` here trips GCC 12's -Wrestrict false positive.
    if (!params.empty()) params.append(" ");
    params.append("max_success=").append(cases);
  }
  setenv("RC_PARAMS", params.c_str(), 1);
  accel::props::set_executable(argv[0]);
  // Loads RapidCheck's configuration now (it prints "Using configuration: ... seed=S" itself), so the
  // seed it picked, or was given, is known before any test runs.
  const auto seed = accel::props::configured_seed();
  std::cout << "props: seed " << seed << ", " << accel::props::configured_cases()
            << " cases per property; replay a failure with RC_PARAMS=\"seed=" << seed << "\"\n";
  int n = static_cast<int>(rest.size());
  // argv[argc] is a null pointer by contract and GoogleTest reads it while removing its own flags.
  rest.push_back(nullptr);
  testing::InitGoogleTest(&n, rest.data());
  return RUN_ALL_TESTS();
}
