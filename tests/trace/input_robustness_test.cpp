// Issue 18: what the config and trace readers do with hostile input. Each test is a finding of the
// bad-input campaign that used to crash, hang or answer wrongly.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include <string>

#include "trace/input_limits.hpp"
#include "trace/trace_diff.hpp"
#include "trace/trace_json.hpp"

namespace accel::trace {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_config(parse_text(text, "t"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(InputRobustness, DeepNestingIsRefusedAtParse) {
  const std::string deep = std::string(30000, '[') + std::string(30000, ']');
  try {
    parse_text(deep, "deep.json");
    FAIL() << "parsed";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper than"), std::string::npos) << e.what();
  }
  // The limit itself parses.
  const std::string ok = std::string(kMaxJsonDepth - 1, '[') + std::string(kMaxJsonDepth - 1, ']');
  EXPECT_NO_THROW(parse_text(ok, "ok.json"));
}

TEST(InputRobustness, NumberOutsideDoubleRangeIsAConfigError) {
  try {
    parse_text(R"({"config": {"dataset_len": 1e400}})", "big.json");
    FAIL() << "parsed";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("outside the range of a double"), std::string::npos) << e.what();
  }
}

TEST(InputRobustness, DuplicateKeyIsRefusedAndNamed) {
  try {
    parse_text(R"({"dataset_len": 10, "num_processes": 2, "dataset_len": 12})", "dup.json");
    FAIL() << "parsed";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("duplicate key \"dataset_len\""), std::string::npos) << e.what();
  }
  // The same key in two different objects is fine.
  EXPECT_NO_THROW(parse_text(R"({"a": {"k": 1}, "b": {"k": 2}})", "ok.json"));
}

TEST(InputRobustness, NullOrNumberWhereAStringBelongs) {
  EXPECT_NE(error_of(R"({"api": 5, "dataset_len": 4, "num_processes": 1})").find("config.api"), std::string::npos);
  // A null api means the default (prepare_data_loader), as for every other field.
  EXPECT_EQ(error_of(R"({"api": null, "dataset_len": 4, "num_processes": 1})"), "");
  EXPECT_NE(error_of(R"({"dataset_kind": 5, "dataset_len": 4, "num_processes": 1})").find("config.dataset_kind"),
            std::string::npos);
  EXPECT_EQ(family_of(Json::parse(R"({"api": null, "dataset_kind": 5})")), "map");
}

TEST(InputRobustness, SchedulerWithoutApiIsRefused) {
  const std::string e = error_of(
      R"({"dataset_len": 8, "num_processes": 2, "scheduler": {"kind": "step", "base_lr": 0.1, "step_size": 1}})");
  EXPECT_NE(e.find("config.api"), std::string::npos) << e;
}

TEST(InputRobustness, CountsBeyondTheLimitsAreRefusedWithTheRule) {
  EXPECT_NE(error_of(R"({"dataset_len": 9223372036854775807, "num_processes": 1})").find("config.dataset_len: must be <="),
            std::string::npos);
  // Above int64: read unsigned, it must not wrap to a negative number.
  EXPECT_NE(error_of(R"({"dataset_len": 18446744073709551615, "num_processes": 1})").find("must be <="),
            std::string::npos);
  EXPECT_NE(error_of(R"({"dataset_len": 8, "num_processes": 100000000})").find("config.num_processes: must be <="),
            std::string::npos);
  EXPECT_NE(error_of(R"({"dataset_len": 8, "num_processes": 65536, "batch_size": 1099511627776})")
                .find("config.batch_size: times num_processes"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"dataset_len": 8, "num_processes": 1, "epochs": 100000000})").find("config.epochs: must be <="),
            std::string::npos);
  EXPECT_NE(error_of(R"({"dataset_len": 8, "num_processes": 1, "skip_first_batches": 9223372036854775807})")
                .find("config.skip_first_batches"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"dataset_len": 8, "num_processes": 1, "set_epoch": [9223372036854775807]})").find("config.set_epoch"),
            std::string::npos);
  EXPECT_EQ(error_of(R"({"dataset_len": 1099511627776, "num_processes": 65536, "batch_size": 16777216})"), "");
}

TEST(InputRobustness, DiffComparesSignedAndUnsignedExactly) {
  // Parsed: 2^63 is unsigned, -2^63 signed; 2^64-1 unsigned, -1 signed. A cast made each pair equal.
  EXPECT_TRUE(first_divergence(Json::parse("[9223372036854775808]"), Json::parse("[-9223372036854775808]")));
  EXPECT_TRUE(first_divergence(Json::parse("[18446744073709551615]"), Json::parse("[-1]")));
  // In-memory int64 against a parsed unsigned of the same value: equal.
  EXPECT_FALSE(first_divergence(Json::array({std::int64_t{5}}), Json::parse("[5]")));
  EXPECT_FALSE(first_divergence(Json::parse("[-3]"), Json::array({std::int64_t{-3}})));
}

TEST(InputRobustness, DiffLocationOfALongPathNeedsNoRecursion) {
  // std::regex recursed per digit: a path with a 200,000-digit index overflowed the stack.
  const std::string digits(200000, '7');
  Json a = Json::object(), b = Json::object();
  const std::string key = "batches[" + digits + "]";
  a["ranks"] = Json::array({Json::object({{"epochs", Json::array({Json::object({{key, 1}})})}})});
  b["ranks"] = Json::array({Json::object({{"epochs", Json::array({Json::object({{key, 2}})})}})});
  const auto d = first_divergence(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->location, "rank 0, epoch 0, batch " + digits);
  Json c = Json::parse(R"({"ranks":[{"steps":[{"lr":1}]}]})"), e = Json::parse(R"({"ranks":[{"steps":[{"lr":2}]}]})");
  EXPECT_EQ(first_divergence(c, e)->location, "rank 0, step 0");
}

TEST(InputRobustness, ReadInputIsBounded) {
  // A sparse regular file one byte past the limit: read up to the limit, then refused.
  const std::string big = ::testing::TempDir() + "accel_sim_big.json";
  {
    std::FILE* f = std::fopen(big.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(::ftruncate(::fileno(f), static_cast<off_t>(kMaxInputBytes) + 1), 0);
    std::fclose(f);
  }
  try {
    read_input(big);
    FAIL() << "read";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("larger than"), std::string::npos) << e.what();
  }
  std::remove(big.c_str());
  EXPECT_THROW(read_input("/nonexistent/file.json"), ConfigError);
}

// Issue 31: a FIFO blocked `trace --config` forever and a self-linked path was an internal error; both, and
// devices, are refused before anything is opened.
TEST(InputRobustness, ReadInputRefusesWhatIsNotARegularFile) {
  const auto message = [](const std::string& path) {
    try {
      read_input(path);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  EXPECT_NE(message("/dev/zero").find("/dev/zero: is not a regular file (a character device)"), std::string::npos);
  EXPECT_NE(message("/tmp").find("is not a regular file (a directory)"), std::string::npos);
  const std::string fifo = ::testing::TempDir() + "accel_sim_fifo.json";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message(fifo).find("is not a regular file (a FIFO)"), std::string::npos);  // and returns: no writer needed
  std::remove(fifo.c_str());
  const std::string loop = ::testing::TempDir() + "accel_sim_loop.json";
  std::remove(loop.c_str());
  ASSERT_EQ(::symlink(loop.c_str(), loop.c_str()), 0);
  EXPECT_NE(message(loop).find("Too many levels of symbolic links"), std::string::npos) << message(loop);
  std::remove(loop.c_str());
}

// Issue 31: refusals at parse time say where in the file they are.
TEST(InputRobustness, ParseRefusalsNameLineAndColumn) {
  const auto message = [](const std::string& text) {
    try {
      parse_text(text, "f.json");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("parsed");
  };
  EXPECT_NE(message("{\n  \"a\": 1,\n  \"a\": 2}").find("duplicate key \"a\" in one object at line 3, column 3"),
            std::string::npos)
      << message("{\n  \"a\": 1,\n  \"a\": 2}");
  EXPECT_NE(message("{\"x\": [1,\n 1e400]}").find("at line 2, column 2"), std::string::npos)
      << message("{\"x\": [1,\n 1e400]}");
  const std::string deep = "{\"k\":\n" + std::string(70, '[') + std::string(70, ']') + "}";
  EXPECT_NE(message(deep).find("nested deeper than 64 levels at line 2, column 65"), std::string::npos)
      << message(deep);
  // A key-like string inside a value is not a key; the same key in two objects is no duplicate.
  EXPECT_EQ(message("{\"a\": {\"b\": 1}, \"c\": {\"b\": \"a\"}}"), "parsed");
}

}  // namespace
}  // namespace accel::trace
