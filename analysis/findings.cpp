#include "analysis/findings.hpp"

#include <algorithm>

#include "analysis/counted.hpp"

namespace accel::analysis {
namespace {

// The finding's main clause: its message up to the advice that follows a ';' (the verdict stays one line).
std::string main_clause(const std::string& message) {
  const auto cut = message.find("; ");
  std::string out = message.substr(0, cut);
  constexpr std::size_t kMax = 200;
  if (out.size() > kMax) out = out.substr(0, out.rfind(' ', kMax)) + " ...";
  return out;
}

}  // namespace

Findings collect_findings(const WhatIfReport& loader, const TrainingSummary* training, const ResumeReport* resume,
                          const EvalReport* eval) {
  Findings f;
  for (const Warning& w : loader.warnings) f.list.push_back({"loader", w});
  if (training) {
    for (const Warning& w : training->warnings) f.list.push_back({"training", w});
  }
  if (resume && !resume->outcome.identical) {
    const auto& o = resume->outcome;
    Warning w(kResumeNotIdentical, Severity::Warning,
              "the restarted job does not train on what the uninterrupted one does (" +
                  counted(o.extra.count, "extra sample") + ", " + counted(o.missing.count, "missing sample") + "); " +
                  resume->recipe.statement);
    w.with("extra", o.extra.count).with("missing", o.missing.count);
    f.list.push_back({"resume", std::move(w)});
  }
  if (eval) {
    for (const Warning& w : eval->warnings) f.list.push_back({"eval", w});
  }
  std::stable_sort(f.list.begin(), f.list.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.warning.severity) < static_cast<int>(b.warning.severity);
  });
  const auto first_of = [&](Severity s) {
    return std::find_if(f.list.begin(), f.list.end(), [s](const Finding& x) { return x.warning.severity == s; });
  };
  if (const auto e = first_of(Severity::Error); e != f.list.end()) {
    f.verdict = std::string("error[") + e->warning.code + "]: " + main_clause(e->warning.message);
  } else if (const auto w = first_of(Severity::Warning); w != f.list.end()) {
    f.verdict = std::string("warning[") + w->warning.code + "]: " + main_clause(w->warning.message);
  } else {
    f.verdict = "every sample once per epoch, ranks in lock-step";
    if (resume) f.verdict += "; resume exact";
    if (eval) f.verdict += "; metrics exact";
  }
  const auto serious = std::count_if(f.list.begin(), f.list.end(),
                                     [](const Finding& x) { return x.warning.severity != Severity::Note; });
  f.verdict_json = f.verdict;
  if (serious > 1) {
    const std::string more = std::to_string(serious - 1);
    f.verdict += " (+" + more + " more below)";
    f.verdict_json += " (+" + more + (serious == 2 ? " more finding)" : " more findings)");
  }
  return f;
}

}  // namespace accel::analysis
