// The renderers' newer parts: coded warnings (terminal and JSON), the input echo, every pass, computed table
// widths, the check results as JUnit XML, and the HTML page's sections.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/what_if.hpp"
#include "reports/check_render.hpp"
#include "reports/html_report.hpp"
#include "reports/json_report.hpp"
#include "reports/markup_escape.hpp"
#include "reports/terminal_report.hpp"
#include "reports/text_table.hpp"
#include "reports/warning_render.hpp"
#include "tests/support/loader_configs.hpp"

namespace accel::reports {
namespace {

using testing::map_case;

TEST(WarningRender, OneStyleWithSeverityAndCode) {
  analysis::Warning w("duplicated-samples", analysis::Severity::Warning, "23 samples are seen twice");
  w.with("duplicated", std::int64_t{23}).with("ids", std::vector<std::int64_t>{0, 1});
  EXPECT_EQ(warning_line(w), "warning[duplicated-samples]: 23 samples are seen twice");
  const auto j = warning_json(w);
  EXPECT_EQ(j["code"], "duplicated-samples");
  EXPECT_EQ(j["severity"], "warning");
  EXPECT_EQ(j["message"], "23 samples are seen twice");
  EXPECT_EQ(j["duplicated"], 23);
  EXPECT_EQ(j["ids"], nlohmann::json::array({0, 1}));
}

TEST(JsonReport, Version2EchoesTheResolvedInputAndCodesWarnings) {
  auto c = map_case(8, 50000, 16);
  c.loader.shuffle = true;
  c.prepare.even_batches = false;
  c.prepare.data_seed = PythonInt{3};
  c.epochs = 2;
  c.schedule.assign(2, trace::LoaderRole::Prepared);
  analysis::WhatIfOptions options;
  options.command_line = "accel-sim --ranks 8";
  options.accel_sim_version = "9.9.9";
  const auto r = analysis::what_if(c, options);
  const auto j = render_json(r);
  EXPECT_GE(j["report_version"], 2);
  EXPECT_EQ(j["input"]["batch_size"], 16);
  EXPECT_EQ(j["input"]["even_batches"], false);
  EXPECT_EQ(j["input"]["epochs"], 2);
  EXPECT_EQ(j["input"]["data_seed"], 3);
  EXPECT_EQ(j["input"]["drop_last"], false);  // a default, echoed
  EXPECT_EQ(j["versions"]["accel_sim"], "9.9.9");
  EXPECT_EQ(j["versions"]["accelerate"], "1.15.0");
  EXPECT_EQ(j["command_line"], "accel-sim --ranks 8");
  ASSERT_FALSE(j["warnings"].empty());
  bool hang = false;
  for (const auto& w : j["warnings"]) {
    EXPECT_TRUE(w.contains("code") && w.contains("severity") && w.contains("message")) << w.dump();
    if (w["code"] == "uneven-steps-hang") {
      hang = true;
      EXPECT_EQ(w["severity"], "error");
      EXPECT_EQ(w["step"], 390);
    }
  }
  EXPECT_TRUE(hang);
  ASSERT_EQ(j["passes"]["per_pass"].size(), 2u);
  EXPECT_EQ(j["passes"]["per_pass"][1]["pass"], 1);
  // v1 paths stay where they were.
  EXPECT_EQ(j["num_processes"], 8);
  EXPECT_EQ(j["scenarios"][0]["steps_per_rank"].size(), 8u);
  EXPECT_TRUE(j["scenarios"][0].contains("duplicated"));
  EXPECT_TRUE(j["scenarios"][0].contains("dropped"));
}

TEST(TextTable, ColumnsFitTheirWidestCell) {
  TextTable t({"option", "steps"});
  t.add({"a label much longer than thirty-six characters, really", "16"});
  t.add({"short", "15 (41-63: 14)"});
  const std::string out = t.render("", 2);
  std::istringstream in(out);
  std::string line;
  std::vector<std::size_t> second_column;
  while (std::getline(in, line)) {
    // The second column starts at the same offset on every line.
    const std::size_t at = line.find_first_not_of(' ', line.find("  "));
    second_column.push_back(at);
  }
  ASSERT_EQ(second_column.size(), 3u);
  EXPECT_EQ(second_column[0], second_column[1]);
  EXPECT_EQ(second_column[1], second_column[2]);
}

TEST(TerminalReport, WarningsInOneStyle) {
  const auto r = analysis::what_if(map_case(64, 1001, 1));
  const std::string out = render_terminal(r);
  EXPECT_NE(out.find("warning[duplicated-samples]: 23 samples are seen twice"), std::string::npos) << out;
  EXPECT_EQ(out.find("  ! "), std::string::npos) << out;
}

TEST(CheckRender, JunitHasOneTestcasePerRequirementPerPassAndEscapes) {
  analysis::CheckReport r;
  r.outcomes.push_back({"no-duplicates", "first pass", false, "ids 1 < 2 & \"3\""});
  r.outcomes.push_back({"lockstep", "first pass", true, ""});
  r.outcomes.push_back({"no-duplicates", "full pass", true, ""});
  const std::string xml = render_check_junit(r, "accel-sim check --require 'a<b'");
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"first pass\" name=\"no-duplicates\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"full pass\" name=\"no-duplicates\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("ids 1 &lt; 2 &amp; &quot;3&quot;</failure>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("value=\"accel-sim check --require &apos;a&lt;b&apos;\""), std::string::npos) << xml;
  EXPECT_EQ(escape_markup(std::string("a\x01"
                                      "b")),
            "a?b");
  const auto j = render_check_json(r, "cmd");
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["failures"], 1);
  EXPECT_EQ(j["results"][0]["evidence"], "ids 1 < 2 & \"3\"");
  EXPECT_TRUE(j["results"][1]["evidence"].is_null());
}

TEST(HtmlReport, CarriesTheCommandLineVersionsAndTheWaitingStep) {
  auto c = map_case(8, 50000, 16);
  c.prepare.even_batches = false;
  analysis::WhatIfOptions options;
  options.coverage_bins = kHtmlCoverageBins;
  options.command_line = "accel-sim --ranks 8 --dataset-len 50000 --batch-size 16 --no-even-batches";
  options.accel_sim_version = "9.9.9";
  const std::string html = render_html(analysis::what_if(c, options));
  EXPECT_NE(html.find(options.command_line), std::string::npos);
  EXPECT_NE(html.find("accel-sim 9.9.9"), std::string::npos);
  // The step where ranks 0-4 wait has cells in the hang colour with a tooltip naming rank and step.
  EXPECT_NE(html.find(std::string("fill=\"") + html_colour::kHang + "\"><title>rank 0, step 390: waits forever"),
            std::string::npos);
  EXPECT_NE(html.find("rank 0, step 0: a batch; sample ids 0, 1, 2, 3, 4, 5, 6, 7, ..."), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

}  // namespace
}  // namespace accel::reports
