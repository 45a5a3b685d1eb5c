// cli/in_process.hpp: the command line run inside a host process (the Python module's path) behaves as the
// executable does, captures only its own output, and refuses what would fork, exec or exit the host.
#include <gtest/gtest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/in_process.hpp"

namespace {

using accel::cli::run_in_process;

TEST(InProcess, WhatIfJsonOnStdout) {
  const auto r = run_in_process({"--ranks", "64", "--dataset-len", "1001", "--json"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("\"duplicated\": 23,"), std::string::npos);  // the acceptance value
  EXPECT_EQ(r.err, "");
}

// Issue 50: the dict's verdict (JSON, Python) counts the other findings; "more below" is the terminal's wording.
TEST(InProcess, TheJsonVerdictCountsTheOtherFindingsAndTheTerminalPointsBelow) {
  const std::vector<std::string> job{"--ranks",       "4", "--dataset-len", "10",      "--batch-size", "4",
                                     "--num-workers", "2", "--dataset",     "iterable"};
  auto json_args = job;
  json_args.push_back("--json");
  const auto json = run_in_process(json_args);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  const std::string verdict = j["verdict"];
  int serious = 0;
  for (const auto& f : j["findings"]) serious += f["severity"] != "note";
  ASSERT_GE(serious, 3) << json.out;
  EXPECT_EQ(verdict.find("below"), std::string::npos) << verdict;
  const std::string suffix = " (+" + std::to_string(serious - 1) + " more findings)";
  ASSERT_GE(verdict.size(), suffix.size());
  EXPECT_EQ(verdict.substr(verdict.size() - suffix.size()), suffix) << verdict;
  const auto terminal = run_in_process(job);
  ASSERT_EQ(terminal.exit_code, 0) << terminal.err;
  const std::string first_line = terminal.out.substr(0, terminal.out.find('\n'));
  EXPECT_EQ(first_line, "verdict: " + verdict.substr(0, verdict.size() - suffix.size()) + " (+" +
                            std::to_string(serious - 1) + " more below)");
}

TEST(InProcess, BadInputIsExit2WithTheMessageOnStderr) {
  const auto r = run_in_process({"--ranks", "0", "--dataset-len", "10"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--ranks: must be an integer in [1, 65536]"), std::string::npos) << r.err;
  const auto unknown = run_in_process({"--no-such-flag"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--no-such-flag"), std::string::npos) << unknown.err;
}

TEST(InProcess, RefusesWhatWouldForkExecOrExit) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"run", "--dataset-len", "4"}, {"launch", "--nproc", "2"}, {"compare", "--reference"}, {"version"},
           {"--ranks", "2", "--version"}}) {
    const auto r = run_in_process(args);
    EXPECT_EQ(r.exit_code, 2) << args.front();
    EXPECT_NE(r.err.find("not available in-process"), std::string::npos) << r.err;
  }
}

TEST(InProcess, CallsAreIndependentAndTheHostsStreamsAreRestored) {
  std::ostringstream host_out;
  std::ostringstream host_err;
  std::streambuf* out_before = std::cout.rdbuf(host_out.rdbuf());
  std::streambuf* err_before = std::cerr.rdbuf(host_err.rdbuf());
  std::cout.setstate(std::ios::eofbit);
  const auto bad = run_in_process({"--ranks", "x"});
  const auto trace = run_in_process({"trace", "--ranks", "2", "--dataset-len", "5", "--batch-size", "2"});
  const bool eof_kept = std::cout.eof();
  std::cout.clear();
  std::cout << "host";
  std::cerr << "host err";
  std::cout.rdbuf(out_before);
  std::cerr.rdbuf(err_before);
  EXPECT_TRUE(eof_kept);
  EXPECT_EQ(host_out.str(), "host");
  EXPECT_EQ(host_err.str(), "host err");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(trace.exit_code, 0);
  EXPECT_EQ(trace.err, "");
  EXPECT_NE(trace.out.find("\"batches\": [[0,1],[4,0]]"), std::string::npos) << trace.out;
}

}  // namespace
