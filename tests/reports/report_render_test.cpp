// The renderers' newer parts: coded warnings (terminal and JSON), the input echo, every pass, computed table
// widths, the check results as JUnit XML, and the HTML page's sections.
#include <gtest/gtest.h>

// GCC 12 reports -Wmaybe-uninitialized inside libstdc++'s <regex> automaton at -O1 with ASan (the sanitize
// label's build; GCC bug 105562), about std::function members it has just built: not this file's code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#include <sstream>

#include "analysis/eval_metrics.hpp"
#include "analysis/findings.hpp"
#include "analysis/resume_what_if.hpp"
#include "analysis/what_if.hpp"
#include "reports/check_render.hpp"
#include "reports/eval_render.hpp"
#include "reports/html_report.hpp"
#include "reports/json_report.hpp"
#include "reports/markup_escape.hpp"
#include "reports/resume_render.hpp"
#include "reports/terminal_report.hpp"
#include "reports/text_table.hpp"
#include "reports/training_render.hpp"
#include "reports/warning_render.hpp"
#include "tests/support/loader_configs.hpp"
#include "trace/resume_json.hpp"

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
  EXPECT_EQ(j["versions"]["accelerate"], "1.16.0");  // the default: the newest modelled release
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
  const auto r = analysis::what_if(c, options);
  const std::string html = render_html(r, analysis::collect_findings(r, nullptr, nullptr, nullptr));
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

// The page for 8 ranks x 50000 ids in batches of 16 without even_batches: ranks 5-7 get 390 steps, ranks 0-4 391
// and hang at step 390; every alternative is simulated, so the findings hold an error, warnings and a note.
analysis::WhatIfReport uneven_report(std::int64_t epochs = 1) {
  auto c = map_case(8, 50000, 16);
  c.prepare.even_batches = false;
  c.epochs = epochs;
  c.schedule.assign(static_cast<std::size_t>(epochs), trace::LoaderRole::Prepared);
  analysis::WhatIfOptions options;
  options.coverage_bins = kHtmlCoverageBins;
  return analysis::what_if(c, options);
}

// The text between `from` (its first occurrence after `after`) and the next `to`.
std::string between(const std::string& html, const std::string& from, const std::string& to, std::size_t after = 0) {
  const auto b = html.find(from, after);
  if (b == std::string::npos) return "";
  const auto e = html.find(to, b + from.size());
  return html.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

// Two epochs of 50 optimizer steps, the lr falling from 0.1 to 0 and starting at the plot's top-left corner.
analysis::TrainingSummary two_epoch_training() {
  analysis::TrainingSummary t;
  t.schedule = "linear (lr 0.1, total_steps 100)";
  for (std::int64_t e = 0; e < 2; ++e) {
    analysis::EpochTraining epoch;
    epoch.epoch = e;
    epoch.micro_steps = epoch.optimizer_steps = epoch.scheduler_steps = 50;
    epoch.last_epoch_end = 50 * (e + 1);
    epoch.lr_end = 0.1 - 0.05 * static_cast<double>(e + 1);
    t.epochs.push_back(epoch);
  }
  for (std::int64_t s = 0; s <= 100; ++s) {
    t.lr_curve.push_back({s, s < 50 ? 0 : 1, s, 0.1 * (1 - static_cast<double>(s) / 100)});
  }
  t.optimizer_steps = 100;
  t.scheduler_steps = 100;
  t.last_epoch_end = 100;
  return t;
}

TEST(HtmlReport, OpensWithTheVerdictAndTheFindingsErrorsFirst) {
  const auto r = uneven_report();
  auto t = two_epoch_training();
  t.warnings.emplace_back(analysis::code::kScheduleEndsEarly, analysis::Severity::Warning,
                          "the schedule ends early: total_steps 10 is reached at optimizer step 2 of 782");
  ReportSections sections;
  sections.training = &t;
  const auto findings = analysis::collect_findings(r, &t, nullptr, nullptr);
  ASSERT_GE(findings.list.size(), 2u);
  const std::string html = render_html(r, findings, sections);
  const auto body = html.find("<body>");
  const auto verdict = html.find("<p id=\"verdict\"");
  const auto list = html.find("<ol id=\"findings\">");
  // Before anything else on the page (the first section heading).
  ASSERT_NE(verdict, std::string::npos);
  ASSERT_NE(list, std::string::npos);
  EXPECT_LT(verdict, html.find("<h2", body));
  EXPECT_LT(list, html.find("<h2", body));
  EXPECT_NE(html.find("verdict: " + escape_markup(findings.verdict), verdict), std::string::npos);
  // Every finding once, in the list's order, with its severity, code, section and message.
  std::size_t at = list;
  for (const auto& f : findings.list) {
    const std::string item = std::string("<li class=\"finding ") + analysis::severity_name(f.warning.severity) +
                             "\" data-code=\"" + f.warning.code + "\" data-section=\"" + f.section + "\">";
    const auto here = html.find(item, at);
    ASSERT_NE(here, std::string::npos) << item;
    EXPECT_NE(html.find(escape_markup(f.warning.message), here), std::string::npos) << f.warning.code;
    at = here + item.size();
  }
  EXPECT_EQ(between(html, "<li class=\"finding ", "\"", list), "<li class=\"finding error");
  // Shown once: the sections no longer repeat their findings below.
  EXPECT_EQ(html.find("the schedule ends early"),
            html.rfind("the schedule ends early", html.find("<pre id=\"terminal\"")));
}

TEST(HtmlReport, FindingShowsItsSimulatedFix) {
  // 2 ranks over 10 ids in batches of 3: ids 0 and 1 are seen twice; even_batches=False is simulated exact.
  const auto r = analysis::what_if(map_case(2, 10, 3));
  const auto findings = analysis::collect_findings(r, nullptr, nullptr, nullptr);
  const std::string html = render_html(r, findings);
  bool noted = false;
  for (const auto& f : findings.list) {
    if (f.warning.code != analysis::code::kExactAlternative) continue;
    for (const auto& [key, value] : f.warning.evidence) {
      if (key != "flags") continue;
      noted = true;
      const auto item = html.find("data-code=\"exact-alternative\"");
      ASSERT_NE(item, std::string::npos);
      const auto fix = html.find("simulated fix: <code>" + escape_markup(std::get<std::string>(value)) + "</code>");
      ASSERT_NE(fix, std::string::npos);
      EXPECT_EQ(fix, html.find("simulated fix: <code>", item));  // within the note, the first fix after it
    }
  }
  EXPECT_TRUE(noted) << "no exact-alternative note to check";
}

// Bars from 0 drew 391 and 390 steps 0.4 px apart: the short ranks' bar must stand visibly lower, and the axis must
// name both counts.
TEST(HtmlReport, StepsChartShowsOneStepOfDifference) {
  const auto r = uneven_report();
  const std::string html = render_html(r, analysis::collect_findings(r, nullptr, nullptr, nullptr));
  const std::string svg = between(html, "<svg class=\"chart\" id=\"steps\"", "</svg>");
  ASSERT_FALSE(svg.empty());
  const auto height_of = [&](const std::string& title) {
    static const std::regex bar("height=\"([0-9.]+)\" fill=\"[^\"]+\"><title>([^<]*)</title>");
    for (std::sregex_iterator it(svg.begin(), svg.end(), bar), end; it != end; ++it) {
      if ((*it)[2] == title) return std::stod((*it)[1]);
    }
    ADD_FAILURE() << "no bar titled " << title;
    return 0.0;
  };
  const double tall = height_of("rank 0: 391 steps"),
               short_bar = height_of("rank 5: 390 steps (1 fewer than the most)");
  EXPECT_GT(tall, 0);
  EXPECT_LT(short_bar, 0.9 * tall) << "391 and 390 steps look the same";
  EXPECT_NE(svg.find(">391</text>"), std::string::npos);
  EXPECT_NE(svg.find(">390</text>"), std::string::npos);
  EXPECT_NE(html.find("ranks 5-7: 390 steps, 1 fewer than the most (391)"), std::string::npos);
}

// Issue 50: a duplicated-samples job (4 ranks x 10 ids in batches of 4, even_batches pads ranks 2 and 3) is not
// solid blue: the padded batches take the duplicated colour in both charts, with a legend; the analysis says which.
TEST(HtmlReport, PaddedBatchesAreMarkedInTheTimelineAndTheStepsChart) {
  analysis::WhatIfOptions options;
  options.coverage_bins = kHtmlCoverageBins;
  const auto r = analysis::what_if(map_case(4, 10, 4), options);
  const auto& base = r.scenarios.front();
  ASSERT_EQ(base.padded_batches_per_rank, (std::vector<std::int64_t>{0, 0, 1, 1}));
  const std::string html = render_html(r, analysis::collect_findings(r, nullptr, nullptr, nullptr));
  const std::string timeline = between(html, "<svg class=\"chart\" id=\"timeline\"", "</svg>");
  const std::string dup = std::string("fill=\"") + html_colour::kDuplicated + "\"><title>";
  const std::string batch = std::string("fill=\"") + html_colour::kBatch + "\"><title>";
  EXPECT_NE(timeline.find(batch + "rank 0, step 0: a batch"), std::string::npos) << timeline;
  EXPECT_NE(timeline.find(dup + "rank 2, step 0: a batch; sample ids 8, 9, 0, 1; 2 padded samples"), std::string::npos)
      << timeline;
  EXPECT_NE(timeline.find(dup + "rank 3, step 0: a batch; sample ids 2, 3, 4, 5; 4 padded samples"), std::string::npos)
      << timeline;
  const std::string steps = between(html, "<svg class=\"chart\" id=\"steps\"", "</svg>");
  EXPECT_NE(steps.find(dup + "rank 2: the last step holds padding"), std::string::npos) << steps;
  EXPECT_EQ(steps.find(dup + "rank 0:"), std::string::npos) << steps;
  EXPECT_NE(html.find("a batch with padding (duplicated samples)"), std::string::npos);
  EXPECT_NE(html.find("steps with padding (duplicated samples)"), std::string::npos);
}

// The ranks that wait in a collective are marked in both charts; a job without padding has no padding colour.
TEST(HtmlReport, WaitingRanksAreMarkedAndNoPaddingWithoutIt) {
  const auto r = uneven_report();
  const std::string html = render_html(r, analysis::collect_findings(r, nullptr, nullptr, nullptr));
  const std::string timeline = between(html, "<svg class=\"chart\" id=\"timeline\"", "</svg>");
  EXPECT_NE(timeline.find(std::string("fill=\"") + html_colour::kHang +
                          "\" font-weight=\"bold\">rank 0 (391) waits<title>"
                          "rank 0 waits forever at step 390"),
            std::string::npos)
      << timeline;
  EXPECT_NE(timeline.find(">rank 5 (390) short<title>rank 5 has fewer steps than the others"), std::string::npos);
  const std::string steps = between(html, "<svg class=\"chart\" id=\"steps\"", "</svg>");
  EXPECT_NE(steps.find(std::string("fill=\"") + html_colour::kHang + "\"><title>rank 0: waits forever at step 390"),
            std::string::npos)
      << steps;
  EXPECT_EQ(steps.find("rank 5: waits"), std::string::npos);
  EXPECT_EQ(html.find(std::string("fill=\"") + html_colour::kDuplicated + "\"><title>rank"), std::string::npos);
  EXPECT_EQ(html.find("a batch with padding"), std::string::npos);
}

TEST(HtmlReport, PageIsNotCappedNarrowerThanItsTables) {
  const auto r = uneven_report();
  const std::string html = render_html(r, analysis::collect_findings(r, nullptr, nullptr, nullptr));
  const std::string body_rule = between(html, "body{", "}");
  ASSERT_FALSE(body_rule.empty());
  EXPECT_EQ(body_rule.find("max-width"), std::string::npos) << body_rule;
  EXPECT_EQ(html.find("max-width:820px"), std::string::npos);
}

TEST(HtmlReport, LrChartLabelsItsAxesClearOfTheCurveAndNamesTheEpochs) {
  const auto r = uneven_report();
  const auto t = two_epoch_training();
  ReportSections sections;
  sections.training = &t;
  const std::string html = render_html(r, analysis::collect_findings(r, &t, nullptr, nullptr), sections);
  const std::string svg = between(html, "<svg class=\"chart\" id=\"lr\"", "</svg>");
  ASSERT_FALSE(svg.empty());
  EXPECT_NE(svg.find(">epoch 0</text>"), std::string::npos);
  EXPECT_NE(svg.find(">epoch 1</text>"), std::string::npos);
  // Where the curve starts (its first point: step 0 at the top lr).
  static const std::regex first_point("<polyline[^>]*points=\"([0-9.]+),([0-9.]+) ");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, first_point));
  const double curve_x = std::stod(m[1]);
  // Each lr label ends (right-aligned) at least 4 px left of the curve.
  static const std::regex label(
      "<text x=\"([0-9.]+)\" y=\"[0-9.]+\" font-size=\"[0-9]+\" text-anchor=\"([a-z]+)\">lr ");
  int labels = 0;
  for (std::sregex_iterator it(svg.begin(), svg.end(), label), end; it != end; ++it, ++labels) {
    EXPECT_EQ((*it)[2], "end") << it->str();
    EXPECT_LE(std::stod((*it)[1]), curve_x - 4) << it->str();
  }
  EXPECT_EQ(labels, 2);
}

TEST(HtmlReport, EveryPassCellsNameTheirIdsWithoutADanglingSlash) {
  // 64 ranks over 1001 ids: each pass duplicates 23 ids and drops none.
  auto c = map_case(64, 1001, 1);
  c.epochs = 2;
  c.schedule.assign(2, trace::LoaderRole::Prepared);
  analysis::WhatIfOptions options;
  options.coverage_bins = kHtmlCoverageBins;
  const auto r = analysis::what_if(c, options);
  ASSERT_EQ(r.passes.passes.size(), 2u);
  ASSERT_GT(r.passes.passes[0].duplicated, 10);
  ASSERT_EQ(r.passes.passes[0].dropped, 0);
  const std::string html = render_html(r, analysis::collect_findings(r, nullptr, nullptr, nullptr));
  const std::string table = between(html, "<table id=\"passes\">", "</table>");
  ASSERT_FALSE(table.empty());
  EXPECT_FALSE(std::regex_search(table, std::regex("/\\s*</td>"))) << table;
  // The padding repeats the first 23 ids: one run, every id of it named.
  EXPECT_NE(table.find("<td>0-22</td><td>-</td></tr>"), std::string::npos) << table;
}

TEST(HtmlReport, TerminalBoxHoldsEverySection) {
  const auto r = uneven_report();
  const auto t = two_epoch_training();
  const auto resume = analysis::resume_what_if(trace::parse_resume_config(
      {{"api", "resume"},
       {"dataset_len", 20},
       {"batch_size", 2},
       {"num_processes", 2},
       {"multiprocess", true},
       {"epochs", 1},
       {"resume", {{"epoch", 0}, {"step", 2}, {"with", "none"}, {"loop_set_epoch", false}}}}));
  trace::MetricsCase m;
  m.loader = map_case(8, 50000, 16);
  m.loader.prepare.even_batches = false;
  const auto eval = analysis::eval_report(m);
  analysis::CheckReport gate;
  gate.outcomes.push_back({"lockstep", "first pass", false, "ranks 0-4 wait at step 390"});
  ReportSections sections;
  sections.training = &t;
  sections.resume = &resume;
  sections.eval = &eval;
  sections.gate = &gate;
  sections.requirements = "lockstep";
  const auto findings = analysis::collect_findings(r, &t, &resume, &eval);
  const std::string html = render_html(r, findings, sections);
  const std::string box = between(html, "<h2>Terminal report</h2>", "</pre>");
  ASSERT_FALSE(box.empty());
  for (const std::string& part :
       {"verdict: " + findings.verdict, render_terminal(r), render_training_terminal(t), render_resume_terminal(resume),
        render_eval_terminal(eval), render_check_text(gate)}) {
    EXPECT_NE(box.find(escape_markup(part)), std::string::npos) << part;
  }
  EXPECT_NE(box.find("CI gate (check --require lockstep):"), std::string::npos);
}

}  // namespace
}  // namespace accel::reports
#pragma GCC diagnostic pop
