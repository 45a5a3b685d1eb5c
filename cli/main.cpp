// accel-sim: the command line. Subcommands: (none) what-if summary, trace, diff, compare --reference,
// run / launch (real ranks, through accel-sim-rank).
//
// Exit codes: 0 success / traces equal, 1 traces differ, 2 bad input (flags, config, trace files) or a
// configuration Accelerate itself rejects; run/launch also 3 (the rank --die-at-step kills), 4 (the job
// failed) and 5 (the ranks blocked forever in a collective, as the simulator predicted). No LibTorch here: the process must start in milliseconds.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <string_view>

#include "analysis/eval_metrics.hpp"
#include "analysis/findings.hpp"
#include "analysis/recorded_judgement.hpp"
#include "analysis/release_upgrade.hpp"
#include "analysis/requirements.hpp"
#include "analysis/trainer_what_if.hpp"
#include "analysis/training_summary.hpp"
#include "analysis/what_if.hpp"
#include "cli/cli_main.hpp"
#include "cli/compare_reference.hpp"
#include "cli/completion.hpp"
#include "cli/eval_flags.hpp"
#include "cli/help_topics.hpp"
#include "cli/integer_flag.hpp"
#include "cli/launcher.hpp"
#include "cli/loader_flags.hpp"
#include "cli/man_page.hpp"
#include "cli/progress.hpp"  // after training_flags: the dist branch adds its cli headers above it
#include "cli/rank_driver.hpp"
#include "cli/resume_flags.hpp"
#include "cli/text_flag.hpp"
#include "cli/trainer_flags.hpp"
#include "cli/training_flags.hpp"
#include "cli/version.hpp"
#include "core/accelerate_release.hpp"
#include "core/draws_before_prepare.hpp"
#include "core/error.hpp"
#include "core/torch_rng_state.hpp"
#include "reports/check_render.hpp"
#include "reports/eval_render.hpp"
#include "reports/full_terminal_report.hpp"
#include "reports/html_report.hpp"
#include "reports/json_report.hpp"
#include "reports/resume_render.hpp"
#include "reports/terminal_report.hpp"
#include "reports/trainer_render.hpp"
#include "reports/training_render.hpp"
#include "reports/upgrade_render.hpp"
#include "reports/warning_render.hpp"
#include "sim/resume_simulator.hpp"
#include "sim/simulator.hpp"
#include "sim/trainer_eval_simulator.hpp"
#include "sim/trainer_simulator.hpp"
#include "sim/training_simulator.hpp"
#include "trace/nearest_name.hpp"
#include "trace/recorded_json.hpp"
#include "trace/resume_json.hpp"
#include "trace/trace_diff.hpp"
#include "trace/trace_json.hpp"
#include "trace/trainer_eval_json.hpp"
#include "trace/trainer_json.hpp"

namespace {

using accel::trace::Json;

constexpr int kExitDiffer = 1;
constexpr int kExitBadInput = 2;
// diff --recorded: the recording's configuration is one the simulator cannot predict (not modelled, unseeded);
// check --golden: none differed, but some recordings are of what accel-sim does not simulate.
constexpr int kExitNotCompared = 3;
// A bug in accel-sim rather than in its input (an exception nothing expected); sysexits' EX_SOFTWARE.
constexpr int kExitInternal = 70;

// An error the simulation recorded as data (type name, where, message), raised again as Accelerate raised it, so
// that every path reports it with one message ("Accelerate rejects this configuration (ValueError in ...): ...").
[[noreturn]] void raise_recorded(const std::string& type, const std::string& where, const std::string& message) {
  if (const auto t = accel::py_error_type(type)) throw accel::AccelerateError(*t, where, message);
  throw accel::AccelerateError(accel::PyErrorType::ValueError, where, type + ": " + message);
}

// A scenario's rejection, "TypeName: message", raised as that error.
[[noreturn]] void raise_rejection(const std::string& rejected, const std::string& where) {
  const auto colon = rejected.find(": ");
  if (colon == std::string::npos) raise_recorded("ValueError", where, rejected);
  raise_recorded(rejected.substr(0, colon), where, rejected.substr(colon + 2));
}

// Bounded: a config path may name /dev/zero or a pipe that never ends.
std::string read_source(const std::string& path) { return accel::trace::read_input(path); }

using accel::cli::LoaderFlags;

// A trace of any family: the resume and trainer families run two jobs and have their own record layouts.
Json simulated_trace(const std::string& name, const Json& config) {
  if (accel::trace::is_trainer_eval_config(config)) {
    return accel::trace::trainer_eval_to_json(
        name, config, accel::sim::simulate_trainer_eval(accel::trace::parse_trainer_eval_config(config)));
  }
  if (accel::trace::is_trainer_config(config)) {
    return accel::trace::trainer_to_json(name, config, accel::sim::simulate_trainer(accel::trace::parse_trainer_config(config)));
  }
  if (accel::trace::is_resume_config(config)) {
    return accel::trace::resume_to_json(name, config, accel::sim::simulate_resume(accel::trace::parse_resume_config(config)));
  }
  return accel::trace::to_json(name, config, accel::sim::simulate_case(accel::trace::parse_config(config)));
}

int run_trace(const std::string& config_path, const LoaderFlags& flags, const accel::cli::TrainingFlags& training, bool from_flags) {
  Json file;
  Json config;
  if (from_flags) {
    training.validate(flags.skip_batches.has_value());
    config = training.enabled() ? training.config(flags.config()) : flags.config();
  } else {
    file = accel::trace::parse_text(read_source(config_path), config_path);
    if (!file.is_object() || !file.contains("config")) {
      throw accel::trace::ConfigError(config_path + ": must be a JSON object with a `config` object");
    }
    config = file["config"];
  }
  const std::string name = file.is_object() && file.contains("case") && file["case"].is_string()
                               ? file["case"].get<std::string>()
                               : std::string("cli");
  std::optional<Json> family;
  if (file.is_object() && file.contains("family") && file["family"].is_string()) family = file["family"];
  // A recording (a file with a `reference`) is simulated on its own release; the trace written keeps its config.
  const Json simulated_config = from_flags ? config : accel::trace::config_as_recorded(file);
  if (accel::trace::is_resume_config(config) || accel::trace::is_trainer_config(config) ||
      accel::trace::is_trainer_eval_config(config)) {
    Json out = simulated_trace(name, simulated_config);
    out["config"] = config;
    if (family) out["family"] = *family;
    std::cout << accel::trace::dump(out);
    return 0;
  }
  // Written as it is produced: a trace of thousands of ranks never exists as one JSON document.
  const auto trace = accel::sim::simulate_case(accel::trace::parse_config(simulated_config));
  accel::trace::write_trace(std::cout, name, config, trace, family);
  return 0;
}

int run_diff(const std::string& expected_path, const std::string& actual_path) {
  if (expected_path == "-" && actual_path == "-") throw accel::trace::ConfigError("diff: only one side can be `-`");
  const Json expected = accel::trace::parse_text(read_source(expected_path), expected_path);
  const Json actual = accel::trace::parse_text(read_source(actual_path), actual_path);
  const auto d = accel::trace::first_divergence(expected, actual);
  if (!d) {
    std::cout << "identical\n";
    return 0;
  }
  const std::string name = expected.is_object() && expected.contains("case") ? expected["case"].dump() : "trace";
  std::cout << name << ": " << accel::trace::describe(*d) << "\n";
  return kExitDiffer;
}

// The gate's verdict on a device mesh: every tp / cp group computes on one batch (error findings of
// analysis/mesh_layout.hpp: mesh-group-split, mesh-lost-on-skip).
constexpr const char* kMeshGroupsAgree = "mesh-groups-agree";

// The CI gate over one config: every requirement on the first pass (and on a full prepared pass when
// the first one resumes with skip_first_batches), each judged result appended to `out`.
void check_loader(const Json& config, std::vector<std::string> names, const accel::cli::EvalFlags& eval,
                  accel::analysis::CheckReport& out);

// exact-resume: the restarted job trains on exactly what the uninterrupted one does, judged on the resume what-if
// the report shows (ResumeFlags::what_if: the step conversion uses the job's accumulation, --grad-accum or the
// launch setup's).
void check_exact_resume(const std::optional<accel::analysis::ResumeReport>& resume, accel::analysis::CheckReport& out) {
  if (!resume) throw accel::trace::ConfigError("--require exact-resume: give --resume-at E:S (or --resume-at-step G)");
  const auto& o = resume->outcome;
  std::ostringstream evidence;
  if (!o.identical) {
    evidence << o.extra.count << " extra, " << o.missing.count << " missing";
    for (const auto& e : o.epochs) {
      if (e.identical) continue;
      evidence << "; epoch " << e.epoch << " differs";
      if (!e.extra.first.empty()) evidence << " (first extra id " << e.extra.first.ranges().front().first << ")";
      break;
    }
    evidence << ". " << resume->recipe.statement;
  }
  out.outcomes.push_back({"exact-resume", "resumed job", o.identical, evidence.str()});
}

bool lists(const std::string& requirements_text, const std::string& name) {
  if (requirements_text.empty()) return false;
  const auto names = accel::cli::split_list(requirements_text, "--require");
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The rules both the report and the gate apply to the options around the loader, so that a command line one
// refuses the other refuses too: the evaluation loop's options need --eval or --require exact-metrics; the resume
// flags need a checkpoint, and with one the resume what-if runs (its refusals are the same for both).
std::optional<accel::analysis::ResumeReport> resolve_loop_options(const Json& loader_config,
                                                                  const accel::cli::ResumeFlags& resume,
                                                                  std::int64_t grad_accum,
                                                                  const accel::cli::EvalFlags& eval,
                                                                  const std::string& requirements_text) {
  if (eval.loop_options_given() && !eval.eval && !lists(requirements_text, accel::analysis::kExactMetrics)) {
    throw accel::trace::ConfigError(
        "--use-gather-object / --eval-break-after: give --eval (or --require exact-metrics)");
  }
  if (resume.given_without_checkpoint()) {
    throw accel::trace::ConfigError(
        "--resume-with / --resume-ranks / --resume-batch-size / --resume-skip / "
        "--loop-set-epoch: describe a restarted job; give --resume-at E:S or --resume-at-step G");
  }
  if (!resume.enabled()) return std::nullopt;
  return resume.what_if(loader_config, grad_accum);
}

struct CheckOutput {
  bool json = false;
  std::string junit_path;
};

// What `check` prints for its verdicts (text or --json, and --junit FILE); exit 0 when all hold, else 1.
int print_check(const accel::analysis::CheckReport& report, const CheckOutput& output, const std::string& command_line) {
  if (!output.junit_path.empty()) {
    accel::cli::write_output_file(output.junit_path, accel::reports::render_check_junit(report, command_line),
                                  "--junit");
  }
  if (output.json) {
    std::cout << accel::trace::dump(accel::reports::render_check_json(report, command_line));
  } else {
    std::cout << accel::reports::render_check_text(report);
  }
  return report.all_hold() ? 0 : kExitDiffer;
}

// The gate's verdicts for `requirements_text` over one resolved configuration: what `check` prints and what the
// what-if's report shows under --require, from this one function over the same inputs, so the two cannot disagree.
accel::analysis::CheckReport judge(const Json& config, const std::string& requirements_text,
                                   const std::optional<accel::analysis::ResumeReport>& resume,
                                   const accel::cli::EvalFlags& eval) {
  auto requested = accel::cli::split_list(requirements_text, "--require");
  accel::analysis::CheckReport report;
  const auto exact = std::find(requested.begin(), requested.end(), "exact-resume");
  if (exact != requested.end()) {
    requested.erase(exact);
    check_exact_resume(resume, report);
  }
  if (!requested.empty()) check_loader(config, std::move(requested), eval, report);
  return report;
}

// `report_sections`: the rest of what the what-if computes for the same flags (its training and evaluation
// sections), run in the same order so that whatever the report refuses, the gate refuses too.
int run_check_config(const Json& config, const std::string& requirements_text, const accel::cli::ResumeFlags& resume,
                     std::int64_t grad_accum, const accel::cli::EvalFlags& eval, const CheckOutput& output,
                     const std::string& command_line, const std::function<void()>& report_sections) {
  const auto resumed = resolve_loop_options(config, resume, grad_accum, eval, requirements_text);
  const auto report = judge(config, requirements_text, resumed, eval);
  report_sections();
  return print_check(report, output, command_line);
}

void check_loader(const Json& config, std::vector<std::string> names, const accel::cli::EvalFlags& eval,
                  accel::analysis::CheckReport& out) {
  const auto parsed = accel::trace::parse_config(config);
  const auto* loader_case = std::get_if<accel::trace::LoaderCase>(&parsed);
  if (!loader_case) throw accel::trace::ConfigError("check: config must describe a data loader (prepare_data_loader)");
  // exact-metrics is judged on the evaluation loop, not on the loader's scenario.
  const auto exact = std::find(names.begin(), names.end(), std::string(accel::analysis::kExactMetrics));
  const bool want_exact = exact != names.end();
  if (want_exact) names.erase(exact);
  // With a device mesh the requirements hold or fail for the data ranks (a tp group sharing one batch is no
  // duplicate), and whether every tp / cp group gets one batch is a verdict of its own, always judged.
  const accel::trace::LoaderCase data_ranks = accel::analysis::data_rank_case(*loader_case);
  const auto named = std::find(names.begin(), names.end(), std::string(kMeshGroupsAgree));
  if (named != names.end()) {
    names.erase(named);
    if (!loader_case->prepare.torch_device_mesh)
      out.outcomes.push_back({std::string(kMeshGroupsAgree), "first pass", true, "no device mesh", true});
  }
  if (const auto mesh = accel::analysis::analyze_mesh(*loader_case); mesh && !mesh->rejected) {
    std::string evidence;
    for (const auto& f : mesh->findings) {
      if (f.severity == accel::analysis::Severity::Error) evidence += (evidence.empty() ? "" : "; ") + f.message;
    }
    out.outcomes.push_back({std::string(kMeshGroupsAgree), "first pass", evidence.empty(), evidence});
  }
  std::vector<std::pair<std::string, accel::trace::LoaderCase>> passes = {{"first pass", data_ranks}};
  if (!loader_case->schedule.empty() && loader_case->schedule.front() == accel::trace::LoaderRole::Skipped &&
      loader_case->epochs > 1) {
    auto full = data_ranks;
    full.schedule.assign(full.schedule.size(), accel::trace::LoaderRole::Prepared);
    full.skip_first_batches.reset();
    passes.push_back({"full pass", full});
  }
  for (const auto& [what, c] : passes) {
    const auto scenario = accel::analysis::analyze(c, what, "");
    if (scenario.rejected) raise_rejection(*scenario.rejected, "prepare_data_loader");
    std::vector<accel::analysis::RequirementResult> results;
    try {
      results = accel::analysis::check_requirements(scenario, names);
    } catch (const std::invalid_argument& e) {
      // exact-metrics is judged here, outside the scenario's requirements; the list of valid names has it too.
      std::string message = e.what();
      if (!message.empty() && message.back() == ')') {
        message.insert(message.size() - 1,
                       std::string(", ") + accel::analysis::kExactMetrics + ", exact-resume, " + kMeshGroupsAgree);
      }
      throw accel::trace::ConfigError(message);
    }
    for (const auto& r : results) out.outcomes.push_back({r.name, what, r.holds, r.evidence});
    // Every later pass of the configuration as given (the first pass above is pass 0).
    if (what == "first pass" && c.epochs > 1) {
      const auto every = accel::analysis::every_pass(c, scenario);
      for (std::size_t k = 1; k < every.passes.size(); ++k) {
        const auto& p = every.passes[k];
        for (const auto& r : accel::analysis::check_pass_requirements(p, names)) {
          out.outcomes.push_back({r.name, "pass " + std::to_string(p.pass), r.holds, r.evidence});
        }
      }
      for (std::int64_t e = static_cast<std::int64_t>(every.passes.size()); e < every.epochs; ++e) {
        for (const auto& name : names) {
          if (name != "len-consistent") out.outcomes.push_back({name, "pass " + std::to_string(e), true, every.note, true});
        }
      }
    }
  }
  if (want_exact) {
    const auto report = accel::analysis::eval_report(eval.metrics_case(*loader_case));
    const std::string evidence = accel::analysis::exact_metrics_evidence(report);
    out.outcomes.push_back({accel::analysis::kExactMetrics, "evaluation pass", evidence.empty(), evidence});
  }
}

// Diffs every trace file in a directory against the simulator.
int run_check_golden(const std::string& dir) {
  namespace fs = std::filesystem;
  // error_code overloads: a self-linked folder or an unreadable one is bad input, not an internal error.
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    throw accel::trace::ConfigError("--golden: " + dir + " is not a directory" +
                                    (error ? " (" + error.message() + ")" : ""));
  }
  std::vector<fs::path> files;
  fs::directory_iterator it(dir, error), end;
  for (; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".json") files.push_back(it->path());
  }
  if (error) throw accel::trace::ConfigError("--golden: cannot list " + dir + " (" + error.message() + ")");
  std::sort(files.begin(), files.end());
  if (files.empty()) throw accel::trace::ConfigError("--golden: no .json traces in " + dir);
  int matched = 0, differed = 0, not_simulated = 0;
  for (const auto& f : files) {
    const Json expected = accel::trace::parse_text(read_source(f.string()), f.string());
    if (!expected.is_object() || !expected.contains("config")) {
      throw accel::trace::ConfigError(f.string() + ": not a trace (no `config` object)");
    }
    const std::string case_name = expected.contains("case") && expected["case"].is_string() ? expected["case"].get<std::string>() : "";
    Json actual;
    try {
      actual = simulated_trace(case_name, accel::trace::config_as_recorded(expected));
    } catch (const accel::trace::ConfigError& e) {
      // A recording of what accel-sim refuses to simulate (it says so, naming what is recorded): listed and counted
      // apart, never as matched; any other bad config is bad input.
      if (std::string(e.what()).find(" is not simulated") == std::string::npos) throw;
      ++not_simulated;
      std::cout << "NOT SIMULATED " << f.filename().string() << ": " << e.what() << "\n";
      continue;
    }
    actual["config"] = expected["config"];
    if (expected.contains("family")) actual["family"] = expected["family"];
    if (const auto d = accel::trace::first_divergence(expected, actual)) {
      ++differed;
      std::cout << "DIFFERS      " << f.filename().string() << ": " << accel::trace::describe(*d) << "\n";
    } else {
      ++matched;
    }
  }
  std::cout << matched << " matched, " << differed << " differed";
  if (not_simulated > 0) std::cout << ", " << not_simulated << " not simulated";
  std::cout << "\n";
  if (differed > 0) return kExitDiffer;
  return not_simulated > 0 ? kExitNotCompared : 0;
}

Json config_from(const std::string& path, const LoaderFlags& flags);

// "X.Y.Z" as a modelled release, or bad input naming the flag and the modelled range.
std::string modelled_version(const std::string& text, const std::string& flag) {
  try {
    return accel::modelled_release(text).name();
  } catch (const std::invalid_argument& e) {
    throw accel::trace::ConfigError(flag + ": " + e.what());
  }
}

// The checkpoint the upgrade compares when the user names none: the middle of epoch 1 (epoch 0 for a one-epoch job),
// where a restarted job's order depends most on what the release saves; "E:S" for --resume-at. `config` is one
// release's; raises what building or sizing its resume raises.
std::string default_checkpoint(const Json& config, accel::cli::ResumeFlags flags, std::int64_t grad_accum) {
  std::optional<std::string> conversion;
  const std::int64_t epoch = config.value("epochs", std::int64_t{1}) > 1 ? 1 : 0;
  flags.at = std::to_string(epoch) + ":0";
  const accel::trace::ResumeCase c = flags.resume_case(config, grad_accum, conversion);
  return std::to_string(epoch) + ":" + std::to_string(accel::analysis::batches_per_epoch(c) / 2);
}

std::optional<accel::trace::MetricsCase> upgrade_metrics(const accel::trace::LoaderCase& loader,
                                                         const accel::cli::EvalFlags& eval,
                                                         std::vector<std::string>& not_compared) {
  try {
    return eval.metrics_case(loader);
  } catch (const accel::trace::ConfigError& e) {
    not_compared.push_back(std::string("metrics: ") + e.what());
  }
  return std::nullopt;
}

// accel-sim upgrade --from X --to Y [loader flags]: the configuration under both releases, and what changes per rank.
int run_upgrade(const std::string& from, const std::string& to, LoaderFlags flags, const std::string& config_path,
                const accel::cli::ResumeFlags& resume_flags, std::int64_t grad_accum, const accel::cli::EvalFlags& eval,
                bool draw_ids) {
  if (!flags.accelerate_version.empty()) {
    throw accel::trace::ConfigError("--accelerate-version: not with upgrade (--from X --to Y name the two releases)");
  }
  // Both sides are simulated at the same checkpoint: the user's, else one sized by the job as it runs today (or, where
  // that release rejects the job, by the release upgraded to).
  std::vector<std::string> not_compared;
  accel::cli::ResumeFlags resume = resume_flags;
  const auto config_of = [&](const std::string& version) {
    flags.accelerate_version = modelled_version(version, version == from ? "--from" : "--to");
    Json config = config_from(config_path, flags);
    if (!config_path.empty()) config["accelerate_version"] = flags.accelerate_version;
    return config;
  };
  if (!resume.enabled()) {
    std::string why;
    for (const std::string& version : {from, to}) {
      try {
        resume.at = default_checkpoint(config_of(version), resume, grad_accum);
        break;
      } catch (const accel::trace::ConfigError& e) {
        why = e.what();
        break;  // the configuration's shape, the same under every release
      } catch (const accel::AccelerateError& e) {
        why = "Accelerate " + version + " rejects the job (" + e.message() + ")";
      }
    }
    if (!resume.enabled()) not_compared.push_back("resume (--resume-at E:S): " + why);
  }
  const auto side = [&](const std::string& version) {
    const Json config = config_of(version);
    const auto parsed = accel::trace::parse_config(config);
    const auto* c = std::get_if<accel::trace::LoaderCase>(&parsed);
    if (!c) throw accel::trace::ConfigError("upgrade: the config must describe a data loader (prepare_data_loader)");
    accel::analysis::UpgradeSide s{*c, std::nullopt, std::nullopt};
    if (resume.enabled()) {
      std::optional<std::string> conversion;
      s.resume = resume.resume_case(config, grad_accum, conversion);
    }
    std::vector<std::string> reasons;
    s.metrics = upgrade_metrics(*c, eval, reasons);
    for (std::string& r : reasons) {
      if (std::find(not_compared.begin(), not_compared.end(), r) == not_compared.end()) not_compared.push_back(std::move(r));
    }
    return s;
  };
  const accel::analysis::UpgradeSide before_side = side(from);
  const accel::analysis::UpgradeSide after_side = side(to);
  const accel::trace::LoaderCase& before = before_side.loader;
  const std::int64_t positions = std::max(accel::analysis::upgrade_replay_positions(before),
                                          accel::analysis::upgrade_replay_positions(after_side.loader));
  const auto report =
      draw_ids || positions <= accel::analysis::kUpgradeReplayLimit
          ? accel::analysis::upgrade_report(before_side, after_side, not_compared)
          : accel::analysis::upgrade_structure(
                before_side, after_side, not_compared,
                "not replayed: each release's passes hold " + std::to_string(positions) +
                    " sample positions (epochs x dataset_len), past " +
                    std::to_string(accel::analysis::kUpgradeReplayLimit) +
                    " (a replay of both releases costs about 2 s and 400 MB per 4 million); --draw-ids replays them");
  std::string job = (before.api == "accelerator" ? "Accelerator.prepare, " : "prepare_data_loader, ") +
                    std::to_string(before.prepare.num_processes) + (before.prepare.num_processes == 1 ? " rank, " : " ranks, ") +
                    std::to_string(before.loader.dataset_len) + " samples (" +
                    (before.loader.hf_dataset              ? "datasets.IterableDataset"
                     : before.loader.hf_map_shuffle_seed ? "datasets.Dataset"
                     : before.loader.dataset_kind == accel::DatasetKind::Map ? "map-style"
                                                                              : "iterable") +
                    (before.loader.shuffle ? ", shuffled" : "") + "), batch_size " +
                    std::to_string(before.loader.batch_size) + ", " + std::to_string(before.epochs) +
                    (before.epochs == 1 ? " epoch" : " epochs");
  accel::reports::render_upgrade(std::cout, report, job);
  return 0;
}

// check --accelerate-versions X,Y --require LIST: the gate judged under each release, its results labelled by it. A
// release that rejects the configuration fails every requirement with its error.
int run_check_releases(const std::string& versions, const std::string& config_path, LoaderFlags flags,
                       const std::string& requirements, const accel::cli::ResumeFlags& resume_flags,
                       std::int64_t grad_accum, const accel::cli::EvalFlags& eval, const CheckOutput& output,
                       const std::string& command_line) {
  if (!flags.accelerate_version.empty()) {
    throw accel::trace::ConfigError("--accelerate-version: not with --accelerate-versions (give the list alone)");
  }
  accel::analysis::CheckReport all;
  for (const std::string& text : accel::cli::split_list(versions, "--accelerate-versions")) {
    const std::string version = modelled_version(text, "--accelerate-versions");
    flags.accelerate_version = version;
    Json config = config_from(config_path, flags);
    if (!config_path.empty()) config["accelerate_version"] = version;
    const std::string label = "Accelerate " + version;
    try {
      const auto resumed = resolve_loop_options(config, resume_flags, grad_accum, eval, requirements);
      for (auto outcome : judge(config, requirements, resumed, eval).outcomes) {
        outcome.pass = label + ", " + outcome.pass;
        all.outcomes.push_back(std::move(outcome));
      }
    } catch (const accel::AccelerateError& e) {
      const std::string evidence = label + " rejects this configuration (" + std::string(accel::python_name(e.type())) +
                                   " in " + e.where() + "): " + e.message();
      for (const std::string& name : accel::cli::split_list(requirements, "--require")) {
        all.outcomes.push_back({name, label, false, evidence});
      }
    }
  }
  return print_check(all, output, command_line);
}

// A flag that would be silently ignored next to `flag` (check --golden DIR --require ..., trace --config FILE
// --ranks 8) is refused, naming both: the user meant something that is not what would run.
void refuse_alongside(const CLI::App& cmd, const std::string& flag, const std::string& why,
                      std::initializer_list<const char*> also_used = {}) {
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0 || o->check_name(flag)) continue;
    const bool used = std::any_of(also_used.begin(), also_used.end(), [&](const char* u) { return o->check_name(u); });
    if (!used) throw accel::trace::ConfigError(o->get_name() + ": not with " + flag + " (" + why + ")");
  }
}

// The config of a subcommand: a file's `config` object when a path is given, else the loader flags.
Json config_from(const std::string& path, const LoaderFlags& flags) {
  if (path.empty()) return flags.config();
  const Json file = accel::trace::parse_text(read_source(path), path);
  if (!file.is_object() || !file.contains("config") || !file["config"].is_object()) {
    throw accel::trace::ConfigError(path + ": must be a JSON object with a `config` object");
  }
  return file["config"];
}

// The loader flags' config for a job of `world` ranks: --ranks, when given, must agree with it.
Json job_config(const CLI::App& cmd, LoaderFlags flags, std::optional<std::int64_t> world) {
  if (world) {
    if (cmd.count("--ranks") > 0 && flags.ranks != *world) {
      throw accel::trace::ConfigError("--ranks " + std::to_string(flags.ranks) + " disagrees with the job's " +
                                      std::to_string(*world) + " ranks");
    }
    flags.ranks = *world;
  }
  return flags.config();
}

// WORLD_SIZE as torchrun sets it, by --ranks' rule (accel-sim-rank reports a missing one).
std::optional<std::int64_t> world_from_env() {
  const char* text = std::getenv("WORLD_SIZE");
  if (!text) return std::nullopt;
  return accel::cli::read_integer_for("--ranks", text, "environment WORLD_SIZE");
}

// The user's launch setup (an `accelerate config` file, Accelerate's ACCELERATE_* variables) under the
// command line: what it sets is applied to the flags the command line left alone.
accel::cli::AccelerateConfigFile apply_launch_setup(LoaderFlags& flags, accel::cli::TrainingFlags* training,
                                                    const CLI::App& cmd) {
  auto setup = flags.config_file.empty() ? accel::cli::AccelerateConfigFile{}
                                         : accel::cli::read_accelerate_config_file(flags.config_file);
  accel::cli::apply_accelerate_environment(setup, [](const char* name) { return std::getenv(name); });
  flags.apply(setup, cmd);
  if (training && setup.gradient_accumulation_steps && cmd.count("--grad-accum") == 0) {
    training->grad_accum = *setup.gradient_accumulation_steps;
  }
  // A value the command line overrode is not what runs: the report says so beside it.
  const auto overridden = [&](const std::string& field, const char* flag, const std::string& value) {
    if (cmd.count(flag) == 0) return;
    for (std::string& line : setup.used) {
      if (line.rfind(field, 0) == 0) line += ", overridden by " + std::string(flag) + " " + value;
    }
  };
  overridden("num_processes:", "--ranks", std::to_string(flags.ranks));
  overridden("mixed_precision:", "--mixed-precision", flags.mixed_precision);
  overridden("ACCELERATE_MIXED_PRECISION=", "--mixed-precision", flags.mixed_precision);
  if (training) {
    overridden("deepspeed_config.gradient_accumulation_steps:", "--grad-accum", std::to_string(training->grad_accum));
    overridden("ACCELERATE_GRADIENT_ACCUMULATION_STEPS=", "--grad-accum", std::to_string(training->grad_accum));
  }
  return setup;
}

struct ReportOptions {
  bool json = false;
  std::string html_path;
  bool draw_ids = false;     // --draw-ids: draw a shuffle past WhatIfOptions::drawn_shuffle_limit
  std::string requirements;  // --require: the gate's verdicts shown in the report
  std::string command_line;  // as typed, for the reports to say what produced them
};

// argv as one shell line: words with anything but [A-Za-z0-9_./:=,@%+-] single-quoted.
std::string command_line_of(int argc, char** argv) {
  std::string line = "accel-sim";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const bool plain = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                               "0123456789_./:=,@%+-") == std::string::npos;
    if (plain) {
      line += " " + word;
      continue;
    }
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += " " + quoted + "'";
  }
  return line;
}

// The training section of the what-if: the loop over rank 0's loader with the wrapped scheduler.
std::optional<accel::analysis::TrainingSummary> training_summary(const LoaderFlags& flags,
                                                                const accel::cli::TrainingFlags& training) {
  if (!training.enabled()) return std::nullopt;
  const auto training_case =
      std::get<accel::trace::SchedulerCase>(accel::trace::parse_config(training.config(flags.config())));
  const auto training_trace = accel::sim::simulate(training_case);
  if (training_trace.error) {
    const auto& e = *training_trace.error;
    // The loader's own refusal is Accelerate's, reported as the loader's everywhere; the rest is the schedule's.
    if (e.where == "prepare_data_loader" || e.where.rfind("Accelerator", 0) == 0)
      raise_recorded(e.type, e.where, e.message);
    throw accel::trace::ConfigError("torch rejects this schedule (" + e.type + " in " + e.where + "): " + e.message);
  }
  const auto& rank0 = std::get<std::vector<accel::trace::SchedulerRankRecord>>(training_trace.body).at(0);
  return accel::analysis::summarize_training(training_case, rank0);
}

int run_what_if(const LoaderFlags& flags, const accel::cli::TrainingFlags& training, const ReportOptions& out,
                const accel::cli::AccelerateConfigFile& setup, const accel::cli::ResumeFlags& resume_flags,
                const accel::cli::EvalFlags& eval) {
  training.validate(flags.skip_batches.has_value(), resume_flags.at_step.has_value());
  const Json loader_config = flags.config();
  const auto parsed = accel::trace::parse_config(loader_config);
  const auto& config = std::get<accel::trace::LoaderCase>(parsed);
  accel::analysis::WhatIfOptions what_if_options;
  if (!out.html_path.empty()) what_if_options.coverage_bins = accel::reports::kHtmlCoverageBins;
  if (out.draw_ids) what_if_options.drawn_shuffle_limit = std::numeric_limits<std::int64_t>::max();
  accel::cli::Progress progress(config.loader.dataset_len >= accel::cli::kProgressMinSamples);
  what_if_options.progress = progress.callback();
  accel::analysis::LaunchSetup launch;
  launch.config_file = setup.path;
  launch.used = setup.used;
  launch.ignored = setup.ignored;
  launch.mixed_precision = flags.mixed_precision;
  launch.use_cpu = flags.use_cpu;
  launch.training = training.enabled();
  launch.overflow_simulated = !training.overflow_steps.empty() || training.overflow_prob.has_value();
  what_if_options.launch = launch;
  what_if_options.command_line = out.command_line;
  what_if_options.accel_sim_version = accel::cli::accel_sim_version();
  if (config.prepare.torch_device_mesh && training.enabled() && !loader_config.contains("accelerator")) {
    throw accel::trace::ConfigError(
        "--scheduler: with a device mesh the training loop is simulated for an Accelerator's ParallelismConfig "
        "(--parallelism with --api accelerator), not for prepare_data_loader(torch_device_mesh=...)");
  }
  const auto report = accel::analysis::what_if(config, what_if_options);
  progress.done();
  // In the order `check` runs them (run_check_config): the gate's inputs, its verdicts, then the other sections.
  const auto resume = resolve_loop_options(loader_config, resume_flags, training.grad_accum, eval, out.requirements);
  std::optional<accel::analysis::CheckReport> gate;
  if (!out.requirements.empty()) gate = judge(loader_config, out.requirements, resume, eval);
  const auto train = training_summary(flags, training);
  std::optional<accel::analysis::EvalReport> evaluation;
  if (eval.eval && !report.scenarios.front().rejected) evaluation = accel::analysis::eval_report(eval.metrics_case(config));
  accel::reports::ReportSections sections;
  sections.training = train ? &*train : nullptr;
  sections.resume = resume ? &*resume : nullptr;
  sections.eval = evaluation ? &*evaluation : nullptr;
  sections.gate = gate ? &*gate : nullptr;
  sections.requirements = out.requirements;
  const auto findings = accel::analysis::collect_findings(report, sections.training, sections.resume, sections.eval);
  if (!out.html_path.empty()) {
    accel::cli::write_output_file(out.html_path, accel::reports::render_html(report, findings, sections), "--html");
  }
  if (out.json) {
    Json j = accel::reports::render_json(report);
    j["verdict"] = findings.verdict_json;
    j["findings"] = Json::array();
    for (const auto& f : findings.list) {
      Json one = accel::reports::warning_json(f.warning);
      one["section"] = f.section;
      j["findings"].push_back(std::move(one));
    }
    // The input echo: the loop options of the sections that ran, beside the resolved loader configuration.
    if (j["input"].is_object()) {
      j["input"]["mixed_precision"] = flags.mixed_precision;
      j["input"]["use_cpu"] = flags.use_cpu;
      j["input"]["training"] = train ? accel::reports::render_training_input(*train) : Json(nullptr);
      j["input"]["resume"] = resume ? accel::reports::render_resume_input(*resume) : Json(nullptr);
      j["input"]["eval"] = evaluation ? Json{{"use_gather_object", evaluation->use_gather_object},
                                             {"break_after", evaluation->break_after ? Json(*evaluation->break_after)
                                                                                     : Json(nullptr)}}
                                      : Json(nullptr);
    }
    if (train) j["training"] = accel::reports::render_training_json(*train);
    if (resume) j["resume"] = accel::reports::render_resume_json(*resume);
    if (evaluation) j["eval"] = accel::reports::render_eval_json(*evaluation);
    if (gate) j["requirements"] = accel::reports::render_check_json(*gate, out.command_line);
    std::cout << accel::trace::dump(j);
  } else {
    std::cout << accel::reports::render_full_terminal(report, findings, sections);
  }
  return report.scenarios.front().rejected ? kExitBadInput : 0;
}

// --api trainer: the Trainer what-if and its gate, both over one trainer-family config and one report.
accel::analysis::CheckReport judge_trainer(const accel::analysis::TrainerReport& report, const std::string& text) {
  try {
    return accel::analysis::judge_trainer(report, accel::cli::split_list(text, "--require"));
  } catch (const std::invalid_argument& e) {
    throw accel::trace::ConfigError(std::string("--require: ") + e.what());
  }
}

int run_trainer_what_if(const Json& config, const ReportOptions& out) {
  if (!out.html_path.empty()) throw accel::trace::ConfigError("--html: not with --api trainer (use the terminal or --json)");
  const auto report = accel::analysis::trainer_what_if(accel::trace::parse_trainer_config(config));
  std::optional<accel::analysis::CheckReport> gate;
  if (!out.requirements.empty()) gate = judge_trainer(report, out.requirements);
  if (out.json) {
    Json j = accel::reports::render_trainer_json(report, config);
    if (gate) j["requirements"] = accel::reports::render_check_json(*gate, out.command_line);
    std::cout << accel::trace::dump(j);
  } else {
    std::cout << accel::reports::render_trainer_terminal(report);
    if (gate) std::cout << "\n" << accel::reports::render_check_text(*gate);
  }
  return report.error ? kExitBadInput : 0;
}

// check --recorded DIR: the requirements on what a real job's ranks saw (analysis/recorded_judgement).
int run_check_recorded(const std::string& dir, const std::string& requirements_text, const CheckOutput& output,
                       const std::string& command_line) {
  const auto run = accel::trace::read_recorded_run(dir);
  accel::analysis::CheckReport report;
  try {
    report = accel::analysis::judge_recorded(run, accel::cli::split_list(requirements_text, "--require"));
  } catch (const std::invalid_argument& e) {
    throw accel::trace::ConfigError(std::string("--require: ") + e.what());
  }
  return print_check(report, output, command_line);
}

// diff --recorded DIR: where the real job left the simulation of the configuration it recorded.
int run_diff_recorded(const std::string& dir, std::optional<std::int64_t> rng_draws) {
  const auto run = accel::trace::read_recorded_run(dir);
  const auto d = accel::analysis::diff_recorded(
      run, rng_draws ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*rng_draws)) : std::nullopt);
  if (!d.comparable) {
    std::cout << "not compared: " << d.why_not << " (check --recorded judges the recording itself)\n";
    return kExitNotCompared;
  }
  if (!d.divergence) {
    std::cout << "identical: " << d.batches_compared << " batches on " << run.num_processes
              << " ranks are the simulation's\n";
    return 0;
  }
  const auto& v = *d.divergence;
  std::cout << "rank " << v.rank << ", epoch " << v.epoch << ", step " << v.step << ": recorded " << v.recorded
            << ", simulated " << v.simulated << " (" << d.batches_compared << " batches agreed before)\n";
  if (const auto& h = d.draws_hint) {
    const std::string seed = "rank 0's sampler generator was seeded with " + std::to_string(h->sampler_generator_seed);
    if (!h->draws) {
      std::cout << "hint: " << seed << ", which torch's generator seeded " << std::to_string(h->torch_seed)
                << " never draws within " << accel::kMaxDrawsBeforePrepare
                << " words: the shuffle was not seeded by set_seed and draws (a generator of the script's own?)\n";
    } else {
      std::cout << "hint: the job drew " << *h->draws << " words from torch's global generator between set_seed and "
                << "prepare (a model built before prepare does that): " << seed << ", its draw after " << *h->draws
                << " words.\n";
      if (!h->remaining) {
        std::cout << "      Simulated with them, the recording is identical: accel-sim diff --recorded " << dir
                  << " --rng-draws " << *h->draws << "\n";
      } else {
        const auto& r = *h->remaining;
        std::cout << "      Simulated with them (--rng-draws " << *h->draws << "), it still differs at rank " << r.rank
                  << ", epoch " << r.epoch << ", step " << r.step << "\n";
      }
    }
  }
  return kExitDiffer;
}

int run_check_trainer(const Json& config, const std::string& requirements_text, const CheckOutput& output,
                      const std::string& command_line) {
  const auto report = judge_trainer(accel::analysis::trainer_what_if(accel::trace::parse_trainer_config(config)),
                                    requirements_text);
  return print_check(report, output, command_line);
}

// Which subcommands get their flags. CLI11 compares every new option with every option of its command, so the
// ~300 flags of all seven commands cost more than the rest of a what-if's process (issue 25: 12 of its 15 million
// instructions); a command is only given its flags when its name is a word of the command line, since otherwise it
// cannot be the one parsed (a word that only happens to be a value costs that command's flags, nothing else).
enum class Commands { All, Named };

// Every command, flag and the variable it fills: built once per command line (and once by
// command_line_options(), which lists what the fuzzer and the docs generate from, with every command's flags).
struct CommandLine {
  CLI::App app{"accel-sim: what HuggingFace Accelerate's data loading does on every rank"};
  LoaderFlags flags;
  ReportOptions report_options;
  accel::cli::TrainingFlags training;
  accel::cli::ResumeFlags resume_flags;
  accel::cli::EvalFlags eval_flags;
  accel::cli::TrainerFlags trainer_flags;
  CLI::App* trace_cmd = nullptr;
  std::string config_path;
  LoaderFlags trace_flags;
  accel::cli::TrainingFlags trace_training;
  CLI::App* diff_cmd = nullptr;
  std::string expected_path, actual_path;
  CLI::App* check_cmd = nullptr;
  std::string check_config, requirements, golden_dir, recorded_dir;
  std::string diff_recorded_dir;
  std::optional<std::int64_t> diff_rng_draws;
  CheckOutput check_output;
  LoaderFlags check_flags;
  accel::cli::ResumeFlags check_resume;
  accel::cli::TrainingFlags check_training;
  accel::cli::EvalFlags check_eval;
  accel::cli::TrainerFlags check_trainer;
  std::string check_releases;
  CLI::App* upgrade_cmd = nullptr;
  std::string upgrade_from, upgrade_to, upgrade_config;
  LoaderFlags upgrade_flags;
  accel::cli::ResumeFlags upgrade_resume;
  accel::cli::EvalFlags upgrade_eval;
  std::int64_t upgrade_grad_accum = 1;
  bool upgrade_draw_ids = false;
  CLI::App* compare_cmd = nullptr;
  bool compare_reference = false;
  std::string compare_config_path;
  LoaderFlags compare_flags;
  CLI::App* run_cmd = nullptr;
  accel::cli::RankFlags run_flags;
  LoaderFlags run_loader;
  CLI::App* launch_cmd = nullptr;
  std::int64_t nproc = 0;
  CLI::App* help_cmd = nullptr;
  std::optional<std::string> help_topic;
  bool help_man = false;
  bool help_page = false;
  CLI::App* completion_cmd = nullptr;
  CLI::App* rng_state_cmd = nullptr;
  std::string completion_shell;
  accel::cli::RankFlags launch_flags;
  LoaderFlags launch_loader;

  CommandLine(Commands which, int argc, char** argv) {
    const auto wanted = [&](std::string_view name) {
      if (which == Commands::All) return true;
      for (int i = 1; i < argc; ++i) {
        if (argv[i] == name) return true;
      }
      return false;
    };
    app.require_subcommand(0, 1);
    app.footer(
        "Examples:\n"
        "  accel-sim --ranks 64 --dataset-len 1001                      what-if for Accelerator().prepare(dl)\n"
        "  accel-sim --ranks 8 --dataset-len 50000 --batch-size 16 --shuffle --set-seed 42 --json\n"
        "  accel-sim --config-file default_config.yaml --dataset-len 50000 --batch_size 16\n"
        "  accel-sim --ranks 4 --dataset-len 1000 --batch-size 8 --shuffle --set-seed 1 --epochs 2 --resume-at 0:10\n"
        "  accel-sim check --ranks 64 --dataset-len 1001 --require no-duplicates,lockstep\n"
        "Exit codes: 0 ok, 1 a requirement failed / traces differ, 2 bad input or a config Accelerate rejects, 70 "
        "internal error; run/launch also 3 (--die-at-step), 4 (the job failed) and 5 (ranks hung in a collective, as "
        "predicted).");
    flags.add_to(app);
    // --help by topic (the loader flags group themselves): each family of options is grouped as it is added, since
    // a lookup by name afterwards scans every option (issue 25: a tenth of a what-if's start-up).
    app.option_defaults()->group("Output");
    app.add_flag("--json", report_options.json, "print the what-if report as JSON (docs/report-json.md)");
    app.add_option("--require", report_options.requirements,
                   "also show what `accel-sim check --require LIST` with these flags judges (the same verdicts: one "
                   "function computes both); the exit code stays the report's")
        ->check(accel::cli::non_empty("a comma-separated list of requirements"));
    app.add_option("--html", report_options.html_path, "also write the report as a self-contained HTML page")
        ->check(accel::cli::non_empty("a FILE"));
    app.add_flag(
        "--draw-ids", report_options.draw_ids,
        "draw a shuffle of more than 2^25 (33,554,432) samples to name its duplicated and dropped ids and fill the "
        "coverage strip (10^9 samples: about 30 s and 4 GB); without it such a what-if gives exact counts "
        "and no ids");
    app.option_defaults()->group("Training loop (with --scheduler)");
    training.add_to(app);
    app.option_defaults()->group("Resume what-if");
    resume_flags.add_to(app);
    app.option_defaults()->group("Evaluation (gather_for_metrics)");
    eval_flags.add_to(app, /*with_switch=*/true);
    trainer_flags.add_to(app);
    // The subcommands below inherit these defaults: their options are not grouped.
    app.option_defaults()->group("Options");
    accel::cli::add_version(app);
    app.get_option("--version")->group("Output");

    trace_cmd = app.add_subcommand("trace", "simulate a config and print its trace (golden schema JSON)");
    if (wanted("trace")) add_trace_flags();
    diff_cmd = app.add_subcommand("diff", "compare two trace files; exit 1 at the first divergence");
    if (wanted("diff")) add_diff_flags();
    check_cmd =
        app.add_subcommand("check", "CI gate: exit 0 when every requirement holds, 1 when one fails, 2 on bad input");
    if (wanted("check")) add_check_flags();
    upgrade_cmd = app.add_subcommand(
        "upgrade", "the configuration under two Accelerate releases (--from X --to Y): what changes on every rank");
    if (wanted("upgrade")) add_upgrade_flags();
    compare_cmd = app.add_subcommand(
        "compare", "record the loader flags' config with the real Accelerate (golden/record), simulate it, diff");
    if (wanted("compare")) add_compare_flags();
    run_cmd = app.add_subcommand(
        "run",
        "one real rank (under torchrun or launch): run the core over Gloo/NCCL; rank 0 diffs with the simulator");
    if (wanted("run")) add_run_flags();
    launch_cmd = app.add_subcommand("launch", "start N local ranks of `run` on 127.0.0.1; exit with rank 0's verdict");
    if (wanted("launch")) add_launch_flags();
    help_cmd = app.add_subcommand("help", "help by topic: `accel-sim help` lists the topics, `accel-sim help resume`");
    help_cmd->add_option("TOPIC", help_topic, "a topic (a command, a family of options, requirements, findings, ...)");
    help_cmd->add_flag("--page", help_page,
                       "print the topic's docs page (built into accel-sim: no source tree needed)");
    help_cmd->add_flag("--man", help_man, "print the manual page accel-sim.1 (roff): accel-sim help --man | man -l -");
    completion_cmd = app.add_subcommand(
        "completion", "print the shell completion script: source <(accel-sim completion bash) (docs/reference.md)");
    completion_cmd->add_option("SHELL", completion_shell, "the shell to complete in")
        ->required()
        ->check(CLI::IsMember(
            std::vector<std::string>(accel::cli::kCompletionShells.begin(), accel::cli::kCompletionShells.end())));
    add_rng_state_cmd();
  }
  void add_rng_state_cmd() {
    // Hidden: what the compiled Python module's rng_state_draws() answers, for the portable wheel's Python package,
    // which runs this executable instead of a module built for one CPython (python/accelerate_sim/_core_exe.py).
    rng_state_cmd = app.add_subcommand("rng-state-draws",
                                       "read torch.get_rng_state()'s bytes on stdin; print the seed and the 32-bit "
                                       "words drawn since");
    rng_state_cmd->group("");
  }
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

 private:
  void add_trace_flags() {
    trace_cmd
        ->add_option("--config", config_path, "JSON file with a `config` object (a golden case works; - for stdin)")
        ->check(accel::cli::non_empty("a FILE, or - for stdin"));
    trace_flags.add_to(*trace_cmd);
    trace_training.add_to(*trace_cmd);
  }
  void add_diff_flags() {
    diff_cmd->add_option("EXPECTED", expected_path, "expected trace (- for stdin)");
    diff_cmd->add_option("ACTUAL", actual_path, "actual trace (- for stdin)");
    diff_cmd
        ->add_option("--recorded", diff_recorded_dir,
                     "a real job's recording (accelerate_sim.record): the first rank/epoch/step where it leaves the "
                     "simulation of its configuration")
        ->check(accel::cli::non_empty("a DIR"));
    accel::cli::add_integer(*diff_cmd, "--rng-draws", diff_rng_draws,
                            "with --recorded: 32-bit words the job drew from torch's global generator between "
                            "set_seed and prepare (a model built there), which the recording cannot know");
  }
  void add_check_flags() {
    check_cmd->add_option("--config", check_config, "JSON file with a `config` object (- for stdin)")
        ->check(accel::cli::non_empty("a FILE, or - for stdin"));
    check_cmd
        ->add_option("--require", requirements,
                     "comma-separated: no-duplicates,no-drops,lockstep,len-consistent,full-coverage,exact-resume,"
                     "exact-metrics")
        ->check(accel::cli::non_empty("a comma-separated list of requirements"));
    check_cmd->add_option("--golden", golden_dir, "diff every trace in this directory against the simulator")
        ->check(accel::cli::non_empty("a DIR"));
    check_cmd
        ->add_option("--recorded", recorded_dir,
                     "judge a real job's recording (DIR/rank-<r>.json from accelerate_sim.record) with --require")
        ->check(accel::cli::non_empty("a DIR"));
    check_cmd
        ->add_option("--accelerate-versions,--accelerate_versions", check_releases,
                     std::string("judge the requirements under each of these Accelerate releases (comma-separated, ") +
                         accel::kAccelerateReleasesModelled + "); each result names its release")
        ->type_name("X.Y.Z,...")
        ->check(accel::cli::non_empty("a comma-separated list of releases"));
    check_cmd->add_flag("--json", check_output.json, "print the results as JSON (one object per requirement per pass)");
    check_cmd
        ->add_option("--junit", check_output.junit_path,
                     "also write the results as JUnit XML to FILE (one testcase per requirement per pass)")
        ->type_name("FILE")
        ->check(accel::cli::non_empty("a FILE"));
    check_flags.add_to(*check_cmd);
    check_resume.add_to(*check_cmd);
    // Every flag the what-if takes, read the same way: the gate judges the configuration the report describes.
    check_training.add_to(*check_cmd);
    check_eval.add_to(*check_cmd, /*with_switch=*/true);
    check_trainer.add_to(*check_cmd);
  }
  void add_upgrade_flags() {
    const std::string range = std::string(" (") + accel::kAccelerateReleasesModelled + ")";
    upgrade_cmd->add_option("--from", upgrade_from, "the release the job runs today" + range)
        ->type_name("X.Y.Z")
        ->required();
    upgrade_cmd->add_option("--to", upgrade_to, "the release to upgrade to" + range)->type_name("X.Y.Z")->required();
    upgrade_cmd->add_option("--config", upgrade_config, "JSON file with a `config` object instead of the flags")
        ->check(accel::cli::non_empty("a FILE, or - for stdin"));
    upgrade_flags.add_to(*upgrade_cmd);
    // The resume and the evaluation are always compared; these flags say which (the what-if's meaning).
    upgrade_resume.add_to(*upgrade_cmd);
    upgrade_eval.add_to(*upgrade_cmd, /*with_switch=*/false);
    accel::cli::add_integer(*upgrade_cmd, "--grad-accum", upgrade_grad_accum,
                "gradient accumulation steps (with --resume-at-step: the optimizer step's batches)");
    upgrade_cmd->add_flag("--draw-ids", upgrade_draw_ids,
                          "replay both releases id by id even past 2^22 positions (epochs x dataset_len); without it "
                          "such a job is compared by its structure (the rules, the first pass's steps and counts)");
  }
  void add_compare_flags() {
    compare_cmd->add_flag("--reference", compare_reference,
                          "compare with the real Accelerate (golden/setup-reference)");
    compare_cmd->add_option("--config", compare_config_path, "JSON file with a `config` object instead of the flags")
        ->check(accel::cli::non_empty("a FILE"));
    compare_flags.add_to(*compare_cmd);
  }
  void add_run_flags() {
    run_flags.add_to(*run_cmd);
    run_loader.add_to(*run_cmd);
  }
  void add_launch_flags() {
    // Checked before anything is forked: each rank is a process with its own LibTorch and two pipes here.
    accel::cli::add_integer(*launch_cmd, "--nproc", nproc,
                            "number of ranks to start (1 to " + std::to_string(accel::cli::kMaxLaunchRanks) + ")")
        ->required();
    launch_flags.add_to(*launch_cmd);
    launch_loader.add_to(*launch_cmd);
  }
};

// "unknown option --rank; did you mean --ranks?" for the first word that looks like an option and is none of the
// command's (CLI11 says "The following arguments were not expected: 8 --rank").
std::optional<std::string> unknown_option_message(const CLI::App& app, int argc, char** argv) {
  const CLI::App* command = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (command == &app) {
      const auto subs = app.get_subcommands([&word](const CLI::App* sub) { return sub->get_name() == word; });
      if (!subs.empty()) {
        command = subs.front();
        continue;
      }
    }
    if (word.rfind("--", 0) != 0 || word.size() < 3) continue;
    const std::string name = word.substr(0, word.find('='));
    bool known = false;
    std::vector<std::string> names;
    for (const CLI::Option* o : command->get_options()) {
      for (const std::string& long_name : o->get_lnames()) {
        names.push_back("--" + long_name);
        known = known || names.back() == name;
      }
    }
    const std::string nearest = accel::trace::nearest_name(name, names);
    if (known) continue;
    const std::string where = command == &app ? "" : " of `accel-sim " + command->get_name() + "`";
    return "unknown option " + name + where + (nearest.empty() ? "" : "; did you mean " + nearest + "?") +
           " (accel-sim" + (command == &app ? "" : " " + command->get_name()) + " --help lists them)";
  }
  return std::nullopt;
}

int run_cli(int argc, char** argv) {
  CommandLine cl(Commands::Named, argc, argv);
  cl.report_options.command_line = command_line_of(argc, argv);
  CLI::App& app = cl.app;

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    std::cerr << "accel-sim: " << unknown_option_message(cl.app, argc, argv).value_or(e.what()) << "\n";
    return kExitBadInput;
  } catch (const CLI::ParseError& e) {
    std::cerr << "accel-sim: " << e.what() << "\n";
    return kExitBadInput;
  }

  if (*cl.rng_state_cmd) {
    const std::string bytes((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    try {
      const auto s = accel::generator_state_from_torch_rng_state(
          std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
      std::cout << s.seed << " " << s.draws << "\n";
      return 0;
    } catch (const std::invalid_argument& e) {
      std::cerr << "accel-sim: rng-state-draws: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  if (*cl.completion_cmd || cl.help_man) {
    if (cl.help_topic) {
      std::cerr << "accel-sim: help --man: the manual page has every topic; give no TOPIC\n";
      return kExitBadInput;
    }
    // Both describe every command, so they read a parser that was given every command's options.
    const CommandLine every(Commands::All, 0, nullptr);
    std::cout << (*cl.completion_cmd ? accel::cli::completion_script(every.app, cl.completion_shell)
                                     : accel::cli::man_page(every.app));
    return 0;
  }
  if (*cl.help_cmd) return accel::cli::print_help_topic(app, cl.help_topic, std::cout, std::cerr, cl.help_page);
  try {
    if (*cl.trace_cmd) apply_launch_setup(cl.trace_flags, &cl.trace_training, *cl.trace_cmd);
    if (*cl.check_cmd) apply_launch_setup(cl.check_flags, &cl.check_training, *cl.check_cmd);
    if (*cl.compare_cmd) apply_launch_setup(cl.compare_flags, nullptr, *cl.compare_cmd);
    if (*cl.upgrade_cmd) apply_launch_setup(cl.upgrade_flags, nullptr, *cl.upgrade_cmd);
    if (*cl.upgrade_cmd) {
      if (!cl.upgrade_config.empty())
        refuse_alongside(*cl.upgrade_cmd, "--config", "the file's config is simulated as it is",
                         {"--from", "--to", "--draw-ids"});
      return run_upgrade(cl.upgrade_from, cl.upgrade_to, cl.upgrade_flags, cl.upgrade_config, cl.upgrade_resume,
                         cl.upgrade_grad_accum, cl.upgrade_eval, cl.upgrade_draw_ids);
    }
    if (*cl.run_cmd) apply_launch_setup(cl.run_loader, nullptr, *cl.run_cmd);
    if (*cl.launch_cmd) apply_launch_setup(cl.launch_loader, nullptr, *cl.launch_cmd);
    if (*cl.trace_cmd) {
      if (!cl.config_path.empty())
        refuse_alongside(*cl.trace_cmd, "--config", "the file's config is simulated as it is");
      const bool from_flags = cl.config_path.empty();
      if (from_flags && cl.trace_flags.dataset_len < 0) {
        throw accel::trace::ConfigError("trace: give --config FILE or the loader flags (--dataset-len ...)");
      }
      return run_trace(cl.config_path, cl.trace_flags, cl.trace_training, from_flags);
    }
    if (*cl.diff_cmd) {
      if (!cl.diff_recorded_dir.empty()) {
        if (!cl.expected_path.empty() || !cl.actual_path.empty())
          throw accel::trace::ConfigError("diff: --recorded DIR compares with the simulation; not with EXPECTED ACTUAL");
        return run_diff_recorded(cl.diff_recorded_dir, cl.diff_rng_draws);
      }
      if (cl.diff_rng_draws) throw accel::trace::ConfigError("diff: --rng-draws goes with --recorded DIR");
      if (cl.expected_path.empty() || cl.actual_path.empty())
        throw accel::trace::ConfigError("diff: give EXPECTED and ACTUAL trace files, or --recorded DIR");
      return run_diff(cl.expected_path, cl.actual_path);
    }
    if (*cl.run_cmd) {
      const Json config =
          cl.run_flags.needs_loader_config() ? job_config(*cl.run_cmd, cl.run_loader, world_from_env()) : Json();
      return accel::cli::exec_rank_driver(cl.run_flags.driver_args(config));
    }
    if (*cl.launch_cmd) {
      if (cl.launch_flags.config_path == "-")
        throw accel::trace::ConfigError("launch: give --config a file, not stdin");
      accel::cli::LaunchPlan plan;
      plan.nproc = cl.nproc;
      plan.program = accel::cli::rank_driver_path();
      plan.args = cl.launch_flags.driver_args(
          cl.launch_flags.needs_loader_config() ? job_config(*cl.launch_cmd, cl.launch_loader, cl.nproc) : Json());
      // Time for the survivors to name a failed rank: their timeout, then a margin.
      plan.grace = std::chrono::milliseconds(static_cast<std::int64_t>(cl.launch_flags.timeout_s * 1000) + 10000);
      return accel::cli::launch(plan);
    }
    if (*cl.check_cmd) {
      if (!cl.golden_dir.empty()) {
        refuse_alongside(*cl.check_cmd, "--golden", "it diffs every trace in DIR with the simulator");
        return run_check_golden(cl.golden_dir);
      }
      if (!cl.recorded_dir.empty()) {
        refuse_alongside(*cl.check_cmd, "--recorded", "the recording is judged as it is",
                         {"--require", "--json", "--junit"});
        if (cl.requirements.empty()) throw accel::trace::ConfigError("check --recorded: give --require LIST");
        return run_check_recorded(cl.recorded_dir, cl.requirements, cl.check_output, cl.report_options.command_line);
      }
      if (!cl.check_config.empty())
        refuse_alongside(*cl.check_cmd, "--config", "the file's config is checked as it is",
                         {"--require", "--json", "--junit", "--use-gather-object", "--eval-break-after", "--resume-at",
                          "--resume-at-step", "--resume-with", "--loop-set-epoch", "--resume-ranks",
                          "--resume-batch-size", "--resume-skip"});
      if (cl.requirements.empty()) throw accel::trace::ConfigError("check: give --require LIST or --golden DIR");
      if (!cl.check_releases.empty()) {
        if (cl.check_flags.api == "trainer") {
          throw accel::trace::ConfigError("--accelerate-versions: not with --api trainer (Trainer runs Accelerate 1.15.0)");
        }
        return run_check_releases(cl.check_releases, cl.check_config, cl.check_flags, cl.requirements, cl.check_resume,
                                  cl.check_training.grad_accum, cl.check_eval, cl.check_output,
                                  cl.report_options.command_line);
      }
      if (cl.check_flags.api == "trainer") {
        if (!cl.check_config.empty()) throw accel::trace::ConfigError("--config: not with --api trainer (the file says its api)");
        const Json config = cl.check_trainer.config(cl.check_flags, cl.check_training, cl.check_resume, *cl.check_cmd,
                                                    std::vector<std::string>(argv + 1, argv + argc));
        return run_check_trainer(config, cl.requirements, cl.check_output, cl.report_options.command_line);
      }
      accel::cli::TrainerFlags::refuse_without_trainer(*cl.check_cmd);
      if (!cl.check_config.empty()) {
        const Json file_config = config_from(cl.check_config, cl.check_flags);
        if (accel::trace::is_trainer_config(file_config))
          return run_check_trainer(file_config, cl.requirements, cl.check_output, cl.report_options.command_line);
      }
      cl.check_training.validate(cl.check_flags.skip_batches.has_value(), cl.check_resume.at_step.has_value());
      const Json config = config_from(cl.check_config, cl.check_flags);
      const auto report_sections = [&] {
        if (!cl.check_config.empty()) return;
        (void)training_summary(cl.check_flags, cl.check_training);
        if (cl.check_eval.eval) {
          const auto parsed = accel::trace::parse_config(config);
          (void)accel::analysis::eval_report(cl.check_eval.metrics_case(std::get<accel::trace::LoaderCase>(parsed)));
        }
      };
      return run_check_config(config, cl.requirements, cl.check_resume, cl.check_training.grad_accum, cl.check_eval,
                              cl.check_output, cl.report_options.command_line, report_sections);
    }
    if (*cl.compare_cmd) {
      if (!cl.compare_reference) throw accel::trace::ConfigError("compare: give --reference (the real Accelerate)");
      if (!cl.compare_flags.accelerate_version.empty() && cl.compare_flags.accelerate_version != accel::kAccelerateVersion) {
        throw accel::trace::ConfigError(std::string("--accelerate-version: compare --reference records with the reference "
                                                    "environment's Accelerate ") + accel::kAccelerateVersion +
                                        "; other releases are recorded by golden/record-releases (golden/releases.md)");
      }
      accel::cli::CompareRequest request;
      if (!cl.compare_config_path.empty()) {
        refuse_alongside(*cl.compare_cmd, "--config", "the file's config is recorded as it is",
                         {"--reference", "--torch-version"});
      }
      request.config = config_from(cl.compare_config_path, cl.compare_flags);
      // Without --torch-version the simulator reproduces the reference's own torch.
      if (cl.compare_cmd->count("--torch-version") > 0) {
        request.config["torch_version"] = cl.compare_flags.torch_version;
      } else if (cl.compare_config_path.empty()) {
        request.config.erase("torch_version");
      }
      return accel::cli::compare_with_reference(request, std::cout, std::cerr);
    }
    if (cl.flags.api != "trainer") accel::cli::TrainerFlags::refuse_without_trainer(app);
    const auto setup = apply_launch_setup(cl.flags, &cl.training, app);
    if (cl.flags.api == "trainer") {
      return run_trainer_what_if(cl.trainer_flags.config(cl.flags, cl.training, cl.resume_flags, app,
                                                         std::vector<std::string>(argv + 1, argv + argc)),
                                 cl.report_options);
    }
    return run_what_if(cl.flags, cl.training, cl.report_options, setup, cl.resume_flags, cl.eval_flags);
  } catch (const accel::trace::ConfigError& e) {
    std::cerr << "accel-sim: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const accel::UnmodelledMesh& e) {
    std::cerr
        << "accel-sim: the device mesh is not simulated: " << e.what()
        << ". Accelerate divides the rank by tp * cp and counts dp_replicate * dp_shard loaders, so a mesh with other "
           "dimensions (sp, pp, ...) gives some ranks an index past the loaders; recorded on real ranks, their first "
           "batch raises (map-style: TypeError, iterable: IndexError)\n";
    return kExitBadInput;
  } catch (const accel::AccelerateError& e) {
    // "train" is transformers' Trainer.train(), the one error site outside Accelerate.
    std::cerr << "accel-sim: " << (e.where() == "train" ? "transformers' Trainer" : "Accelerate")
              << " rejects this configuration (" << accel::python_name(e.type()) << " in " << e.where()
              << "): " << e.message() << "\n";
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    // Sizes within the input limits can still exceed this machine's memory (a shuffle of 2^40 ids), and so can a
    // recording's rank files, which are read whole.
    const bool recording = std::any_of(argv + 1, argv + argc, [](const char* a) {
      return std::string_view(a) == "--recorded" || std::string_view(a).rfind("--recorded=", 0) == 0;
    });
    std::cerr << "accel-sim: out of memory: "
              << (recording ? "the recording's rank files do not fit in this machine's memory (they are read whole)"
                            : "the configuration is too large for this machine")
              << " (README: Input limits)\n";
    return kExitBadInput;
  } catch (const std::length_error& e) {
    std::cerr << "accel-sim: the configuration is too large to represent (" << e.what() << "; README: Input limits)\n";
    return kExitBadInput;
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "accel-sim: internal error: unexpected JSON " << e.what() << " (exit " << kExitInternal
              << "; please report it with the command line)\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "accel-sim: internal error: " << e.what() << " (exit " << kExitInternal
              << "; please report it with the command line)\n";
    return kExitInternal;
  } catch (...) {
    std::cerr << "accel-sim: internal error: an unknown exception (exit " << kExitInternal << ")\n";
    return kExitInternal;
  }
}

}  // namespace

std::vector<accel::cli::CommandLineOption> accel::cli::command_line_options() {
  CommandLine cl(Commands::All, 0, nullptr);
  std::vector<CommandLineOption> out;
  const auto list = [&out](const CLI::App& app, const std::string& command) {
    for (const CLI::Option* o : app.get_options()) {
      if (o->get_lnames().empty()) continue;  // positionals (diff's EXPECTED, ACTUAL) and --help's short names
      CommandLineOption option;
      option.command = command;
      option.name = "--" + o->get_lnames().front();
      option.takes_value = o->get_expected_max() != 0;  // a flag expects no value
      option.type_name = o->get_type_name();
      out.push_back(option);
    }
  };
  list(cl.app, "");
  for (const CLI::App* sub : cl.app.get_subcommands([](const CLI::App*) { return true; })) list(*sub, sub->get_name());
  return out;
}

// The whole command line, exactly as the executable runs it (cli/accel_sim_main.cpp calls it; the Python module
// calls it in-process through cli/in_process.hpp).
int accel::cli::cli_main(int argc, char** argv) {
  int code = kExitInternal;
  try {
    code = run_cli(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "accel-sim: out of memory (README: Input limits)\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "accel-sim: internal error: " << e.what() << " (exit " << kExitInternal << ")\n";
    return kExitInternal;
  } catch (...) {
    std::cerr << "accel-sim: internal error: an unknown exception (exit " << kExitInternal << ")\n";
    return kExitInternal;
  }
  // A trace or report that did not reach its destination (a full disk, /dev/full) is not a success.
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "accel-sim: writing the output failed\n";
    return code == 0 ? kExitBadInput : code;
  }
  return code;
}
