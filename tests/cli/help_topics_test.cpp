// `accel-sim help [TOPIC]`: every topic prints what --help says of it, the reference topics name every
// requirement the gate accepts and every finding code the JSON reference documents, and an unknown topic is
// exit 2 with the nearest name.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli/in_process.hpp"

namespace {

using accel::cli::run_in_process;

std::string help(const std::vector<std::string>& args) {
  const auto r = run_in_process(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return r.out;
}

// The lines of `--help` under the group heading `group`, up to the next heading or blank line.
std::vector<std::string> group_lines(const std::string& full_help, const std::string& group) {
  std::istringstream in(full_help);
  std::vector<std::string> out;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line == group + ":") {
      inside = true;
      continue;
    }
    if (inside && (line.empty() || line[0] != ' ')) break;
    if (inside) out.push_back(line);
  }
  return out;
}

// The topics `accel-sim help` lists, in its order.
std::vector<std::string> listed_topics() {
  const std::string list = help({"help"});
  const std::regex row("^  ([a-z-]+) +\\S");
  std::vector<std::string> out;
  std::istringstream in(list);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) out.push_back(m[1]);
  }
  return out;
}

TEST(HelpTopics, TheListNamesEveryTopicAndEachTopicOpens) {
  const auto topics = listed_topics();
  for (const std::string& topic : topics) {
    const std::string text = help({"help", topic});
    EXPECT_EQ(text.rfind("accel-sim help " + topic + ": ", 0), 0u) << text;
  }
  EXPECT_GE(topics.size(), 12u);
}

TEST(HelpTopics, AnOptionFamilyShowsExactlyWhatHelpListsUnderIt) {
  const std::string full = help({"--help"});
  for (const auto& [topic, group] : std::vector<std::pair<std::string, std::string>>{
           {"resume", "Resume what-if"},
           {"seeds", "Seeds"},
           {"training", "Training loop (with --scheduler)"},
           {"eval", "Evaluation (gather_for_metrics)"},
           {"what-if", "The user's DataLoader"}}) {
    const auto lines = group_lines(full, group);
    ASSERT_GE(lines.size(), 2u) << group;
    const std::string text = help({"help", topic});
    for (const auto& line : lines) EXPECT_NE(text.find(line), std::string::npos) << topic << ": " << line;
    EXPECT_NE(text.find("More: accel-sim help " + topic + " --page (docs/"), std::string::npos) << text;
  }
}

// Issue 49: a pip user has no docs/ folder, so every page a topic names is built in, byte for byte the file's.
TEST(HelpTopics, EveryPageATopicNamesIsBuiltIn) {
  const std::regex more("More: accel-sim help ([a-z-]+) --page \\((docs/[a-z-]+\\.md)\\)");
  int pages = 0;
  for (const std::string& topic : listed_topics()) {
    const std::string text = help({"help", topic});
    std::smatch p;
    if (!std::regex_search(text, p, more)) continue;
    EXPECT_EQ(p[1].str(), topic);
    std::ifstream file(std::string(ACCEL_DOCS_DIR) + "/" + p[2].str().substr(5), std::ios::binary);
    ASSERT_TRUE(file) << p[2];
    const std::string want((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    EXPECT_EQ(help({"help", topic, "--page"}), want) << p[2];
    ++pages;
  }
  EXPECT_GE(pages, 10);
  const auto none = run_in_process({"help", "--page"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("help --page: name a topic"), std::string::npos) << none.err;
}

TEST(HelpTopics, ACommandTopicIsThatCommandsHelp) {
  for (const std::string command : {"check", "diff", "trace"}) {  // launch --help is refused in-process
    const std::string own = help({command, "--help"});
    const std::string text = help({"help", command});
    // Everything from the first option on is the same text.
    const auto from = own.find("Options:");
    ASSERT_NE(from, std::string::npos) << own;
    EXPECT_NE(text.find(own.substr(from)), std::string::npos) << text;
  }
}

TEST(HelpTopics, RequirementsNameEveryRequirementTheGateAccepts) {
  const auto bogus = run_in_process({"check", "--ranks", "2", "--dataset-len", "8", "--require", "bogus"});
  ASSERT_EQ(bogus.exit_code, 2);
  const auto open = bogus.err.find("one of: ");
  ASSERT_NE(open, std::string::npos) << bogus.err;
  const std::string list = bogus.err.substr(open + 8, bogus.err.find(')', open) - open - 8);
  const std::string text = help({"help", "requirements"});
  int names = 0;
  std::istringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    name.erase(0, name.find_first_not_of(' '));
    ++names;
    EXPECT_NE(text.find("  " + name + " "), std::string::npos) << name << "\n" << text;
  }
  EXPECT_GE(names, 7);
}

TEST(HelpTopics, FindingsNameEveryCodeTheJsonReferenceDocuments) {
  std::ifstream doc(ACCEL_DOCS_DIR "/report-json.md");
  ASSERT_TRUE(doc) << ACCEL_DOCS_DIR;
  const std::string text = help({"help", "findings"});
  std::regex row("^\\| `([a-z0-9-]+)` \\| (error|warning|note)");
  int codes = 0;
  for (std::string line; std::getline(doc, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    ++codes;
    EXPECT_NE(text.find("  " + m[1].str() + " "), std::string::npos) << m[1];
  }
  EXPECT_GE(codes, 18);
  EXPECT_NE(text.find("resume-not-identical"), std::string::npos);
}

TEST(HelpTopics, AnUnknownTopicIsExit2WithTheNearestName) {
  const auto r = run_in_process({"help", "resme"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("unknown topic \"resme\"; did you mean resume?"), std::string::npos) << r.err;
}

}  // namespace
