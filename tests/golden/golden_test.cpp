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

TEST(Golden, EveryCoveredCaseMatchesAccelerate) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(ACCEL_GOLDEN_DIR)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 300u) << "golden cases missing from " << ACCEL_GOLDEN_DIR;

  int matched = 0, differed = 0;
  std::map<std::string, std::vector<std::string>> uncovered;
  for (const auto& file : files) {
    const Json expected = load(file);
    const std::string name = expected.at("case").get<std::string>();
    const auto config = accel::trace::parse_config(expected.at("config"));
    if (const auto* u = std::get_if<accel::trace::UncoveredCase>(&config)) {
      uncovered[u->family].push_back(name);
      continue;
    }
    const auto trace = std::visit(
        [](const auto& c) -> accel::trace::Trace {
          if constexpr (std::is_same_v<std::decay_t<decltype(c)>, accel::trace::UncoveredCase>) {
            return {};
          } else {
            return accel::sim::simulate(c);
          }
        },
        config);
    Json actual = accel::trace::to_json(name, expected.at("config"), trace);
    if (const auto d = accel::trace::first_divergence(expected, actual)) {
      ++differed;
      ADD_FAILURE() << name << ": " << accel::trace::describe(*d);
    } else {
      ++matched;
    }
  }
  int not_covered = 0;
  std::string families;
  for (const auto& [family, names] : uncovered) {
    not_covered += static_cast<int>(names.size());
    families += (families.empty() ? "" : ", ") + family + " " + std::to_string(names.size());
  }
  std::cout << "golden: " << matched << " matched, " << differed << " differed, " << not_covered
            << " not yet covered" << (families.empty() ? "" : " (" + families + ")") << "\n";
  for (const auto& [family, names] : uncovered) {
    std::cout << "  not yet covered [" << family << "]:";
    for (const auto& n : names) std::cout << " " << n;
    std::cout << "\n";
  }
  EXPECT_EQ(differed, 0);
  EXPECT_GT(matched, 0);
}

}  // namespace
