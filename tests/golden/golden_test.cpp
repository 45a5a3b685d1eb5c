// Every reference case in golden/ (recorded from the real Accelerate) against the simulator.
//
// A case matches only when the whole trace is identical (reference provenance aside). Families this
// build does not simulate are counted and named as "not yet covered": never counted as matched.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "sim/simulator.hpp"
#include "sim/training_simulator.hpp"
#include "trace/trace_diff.hpp"
#include "trace/trace_json.hpp"

namespace {

using accel::trace::Json;

Json load(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return accel::trace::parse_text(ss.str(), p.string());
}

TEST(Golden, EveryCaseMatchesAccelerate) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(ACCEL_GOLDEN_DIR)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 300u) << "golden cases missing from " << ACCEL_GOLDEN_DIR;

  int matched = 0, differed = 0;
  std::map<std::string, int> matched_by_family;
  // A case whose config this build cannot read is named and counted, never passed.
  std::vector<std::string> not_covered;
  for (const auto& file : files) {
    const Json expected = load(file);
    const std::string name = expected.at("case").get<std::string>();
    accel::trace::CaseConfig config;
    try {
      config = accel::trace::parse_config(expected.at("config"));
    } catch (const accel::trace::ConfigError& e) {
      not_covered.push_back(name + " (" + e.what() + ")");
      continue;
    }
    Json actual = accel::trace::to_json(name, expected.at("config"), accel::sim::simulate_case(config));
    if (const auto d = accel::trace::first_divergence(expected, actual)) {
      ++differed;
      ADD_FAILURE() << name << ": " << accel::trace::describe(*d);
    } else {
      ++matched;
      ++matched_by_family[expected.at("family").get<std::string>()];
    }
  }
  std::string families;
  for (const auto& [family, n] : matched_by_family) families += (families.empty() ? "" : ", ") + family + " " + std::to_string(n);
  std::cout << "golden: " << matched << " matched, " << differed << " differed, " << not_covered.size()
            << " not yet covered (matched by family: " << families << ")\n";
  for (const auto& n : not_covered) std::cout << "  not yet covered: " << n << "\n";
  EXPECT_EQ(differed, 0);
  EXPECT_TRUE(not_covered.empty());
  EXPECT_EQ(matched, static_cast<int>(files.size()));
}

}  // namespace
