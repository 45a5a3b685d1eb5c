// Issue 31: every integer flag is read by the one rule with the bound of its entry in cli/integer_flag.cpp's
// table, and the table and the command line agree: a flag without an entry cannot be added, an entry without a
// flag is dead.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "cli/cli_main.hpp"
#include "cli/integer_flag.hpp"
#include "trace/decimal_integer.hpp"
#include "trace/trace_json.hpp"

namespace accel::cli {
namespace {

TEST(OptionTable, EveryEntryIsAFlagOfSomeCommand) {
  const auto options = command_line_options();  // throws if an integer flag lacks an entry
  ASSERT_FALSE(options.empty());
  for (const IntegerFlag& flag : integer_flags()) {
    const bool found =
        std::any_of(options.begin(), options.end(), [&](const CommandLineOption& o) { return o.name == flag.name; });
    // --die-at-step and --die-rank belong to run/launch, --nproc to launch: all built by cli_main too.
    EXPECT_TRUE(found) << flag.name << " has a table entry but no command has the flag";
    EXPECT_LE(flag.min, flag.max) << flag.name;
  }
}

TEST(OptionTable, IntegerFlagsShowTheirBoundInHelp) {
  for (const CommandLineOption& o : command_line_options()) {
    for (const IntegerFlag& flag : integer_flags()) {
      // --resume-at is E:S: each half is read by the rule (cli/resume_flags.cpp), the flag is text.
      if (o.name == flag.name && o.name != "--resume-at" && flag.max != std::numeric_limits<std::int64_t>::max()) {
        EXPECT_NE(o.type_name.find("[" + std::to_string(flag.min) + ", " + std::to_string(flag.max) + "]"),
                  std::string::npos)
            << o.command << " " << o.name << ": " << o.type_name;
      }
    }
  }
}

TEST(OptionTable, AFlagMissingFromTheTableIsALogicError) {
  EXPECT_THROW(integer_flag("--no-such-flag"), std::logic_error);
}

TEST(DecimalInteger, OneRuleForEveryReader) {
  const auto read = [](const std::string& text) { return trace::read_decimal_integer(text, 1, 65536); };
  EXPECT_EQ(read("1").value, 1);
  EXPECT_EQ(read("65536").value, 65536);
  for (const char* bad :
       {"0", "65537", "010", "0x10", "", "1e3", "+5", " 5", "5 ", "-", "--1", "18446744073709551616"}) {
    const auto r = read(bad);
    EXPECT_FALSE(r.value) << "'" << bad << "' was read as " << *r.value;
    EXPECT_EQ(r.problem.rfind("must be an integer in [1, 65536]", 0), 0u) << r.problem;
  }
  EXPECT_NE(read("010").problem.find("without leading zeros"), std::string::npos);
  EXPECT_NE(read("").problem.find("got an empty value"), std::string::npos);
  const auto wide = trace::read_decimal_integer("-9223372036854775808", std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(wide.value, std::numeric_limits<std::int64_t>::min());
  EXPECT_FALSE(trace::read_decimal_integer("9223372036854775808", 0).value);
}

TEST(DecimalInteger, TextOutsideTheCommandLineNamesItsSource) {
  try {
    read_integer_for("--grad-accum", "0x4", "environment ACCELERATE_GRADIENT_ACCUMULATION_STEPS");
    FAIL();
  } catch (const trace::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "environment ACCELERATE_GRADIENT_ACCUMULATION_STEPS: must be an integer in [1, ", 0),
              0u)
        << e.what();
  }
  EXPECT_EQ(read_integer_for("--ranks", "64", "x"), 64);
}

}  // namespace
}  // namespace accel::cli
