// Running a property under GoogleTest with the reporting this suite wants.
//
// A property is a plain function (RapidCheck draws its inputs inside with *gen, asserts with
// RC_ASSERT), so the same function runs both as a normal test (props) and against a planted bug
// (props_mutants). A failure prints RapidCheck's shrunk counterexample, the seed and the exact command
// that replays it.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <string>

namespace accel::props {

using Property = void (*)();

// Set by main from argv[0], for the replay command.
void set_executable(std::string path);
const std::string& executable();

// Runs `property` with the configured parameters (RC_PARAMS; props_main sets max_success from --cases).
// `id` is "Suite/Name": RapidCheck derives each property's random stream from the seed and this id, so
// the seed replays it. `expected_to_fail` keeps a failure out of RapidCheck's exit summary ("To
// reproduce these, run with: RC_PARAMS=reproduce=..."), for the planted-bug tests.
rc::detail::TestResult run_property(const std::string& id, Property property, bool expected_to_fail = false);

// The seed RapidCheck runs with (RC_PARAMS seed=..., or the random one it picked).
std::uint64_t configured_seed();
int configured_cases();

// `RC_PARAMS="seed=S max_success=N" <executable> --gtest_filter=Suite.Name`
std::string replay_command(const std::string& suite, const std::string& name);

// The test body for a property: passes, or fails with the counterexample, seed and replay command.
void check_property(const char* suite, const char* name, Property property);

}  // namespace accel::props

// Registers `fn` (a Property) as the GoogleTest Suite.Name.
#define ACCEL_PROP(Suite, Name, fn) \
  TEST(Suite, Name) { ::accel::props::check_property(#Suite, #Name, &(fn)); }
