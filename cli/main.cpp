// accel-sim: the command line. Subcommands: (none) what-if summary, trace, diff.
//
// Exit codes: 0 success / traces equal, 1 traces differ, 2 bad input (flags, config, trace files) or a
// configuration Accelerate itself rejects. No LibTorch here: the process must start in milliseconds.
#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "core/error.hpp"
#include "reports/coverage_summary.hpp"
#include "reports/training_summary.hpp"
#include "sim/simulator.hpp"
#include "sim/training_simulator.hpp"
#include "trace/trace_diff.hpp"
#include "trace/trace_json.hpp"

namespace {

using accel::trace::Json;

constexpr int kExitDiffer = 1;
constexpr int kExitBadInput = 2;

std::string read_source(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw accel::trace::ConfigError(path + ": cannot be read");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Flags named after Accelerate's options, gathered into a golden-schema config.
struct LoaderFlags {
  std::int64_t ranks = 1;
  std::int64_t dataset_len = -1;
  std::int64_t batch_size = 1;
  bool split_batches = false;
  bool even_batches = true;
  bool drop_last = false;
  bool shuffle = false;
  bool seedable = true;
  std::optional<std::int64_t> seed;
  std::optional<std::int64_t> torch_seed;
  std::optional<std::int64_t> skip_batches;
  std::int64_t epochs = 1;
  std::string torch_version = "2.6";

  void add_to(CLI::App& app) {
    app.add_option("--ranks,--num-processes", ranks, "number of ranks (num_processes)")->check(CLI::PositiveNumber);
    app.add_option("--dataset-len", dataset_len, "number of samples in the (map-style) dataset")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--batch-size", batch_size, "batch_size of the user's DataLoader")->check(CLI::PositiveNumber);
    app.add_flag("--split-batches", split_batches, "split_batches=True");
    app.add_flag("--even-batches,!--no-even-batches", even_batches, "even_batches (default on)");
    app.add_flag("--drop-last", drop_last, "drop_last=True on the user's DataLoader");
    app.add_flag("--shuffle", shuffle, "shuffle=True (SeedableRandomSampler unless --no-seedable-sampler)");
    app.add_flag("!--no-seedable-sampler", seedable, "keep torch's RandomSampler (use_seedable_sampler=False)");
    app.add_option("--seed", seed, "data_seed of the seedable sampler");
    app.add_option("--torch-seed", torch_seed, "torch.manual_seed of every process");
    app.add_option("--skip-batches", skip_batches, "skip_first_batches(k) on the first pass (a resume)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--epochs", epochs, "passes over the loader")->check(CLI::PositiveNumber);
    app.add_option("--torch-version", torch_version, "torch whose shuffle to reproduce: 2.6 (current) or 1.13")
        ->check(CLI::IsMember({"2.6", "1.13"}));
  }

  Json config() const {
    if (dataset_len < 0) throw accel::trace::ConfigError("--dataset-len: is required (a number >= 0)");
    Json c;
    c["api"] = skip_batches ? "prepare_data_loader+skip_first_batches" : "prepare_data_loader";
    c["dataset_kind"] = "map";
    c["dataset_len"] = dataset_len;
    c["batch_size"] = batch_size;
    c["num_processes"] = ranks;
    c["split_batches"] = split_batches;
    c["even_batches"] = even_batches;
    c["drop_last"] = drop_last;
    c["shuffle"] = shuffle;
    c["use_seedable_sampler"] = shuffle && seedable;
    c["data_seed"] = seed ? Json(*seed) : Json(nullptr);
    c["torch_manual_seed"] = torch_seed ? Json(*torch_seed) : Json(nullptr);
    c["dispatch_batches"] = false;
    c["dataset_generator"] = false;
    c["epochs"] = epochs;
    Json schedule = Json::array();
    for (std::int64_t e = 0; e < epochs; ++e) schedule.push_back(skip_batches && e == 0 ? "skipped" : "prepared");
    c["schedule"] = schedule;
    c["set_epoch"] = nullptr;
    c["skip_first_batches"] = skip_batches ? Json(*skip_batches) : Json(nullptr);
    c["multiprocess"] = false;
    c["torch_version"] = torch_version;
    return c;
  }
};

// A CLI11 check with a readable rule ("--grad-accum: must be an integer >= 1, got 0").
CLI::Validator integer_at_least(std::int64_t min_value) {
  return CLI::Validator(
      [min_value](std::string& text) -> std::string {
        std::int64_t v = 0;
        const char* end = text.data() + text.size();
        if (std::from_chars(text.data(), end, v).ptr != end || v < min_value) {
          return "must be an integer >= " + std::to_string(min_value) + ", got " + text;
        }
        return "";
      },
      "INT>=" + std::to_string(min_value));
}

// A number check: `ok` decides, `rule` says what was wanted ("must be a number > 0").
template <typename Predicate>
CLI::Validator number_where(Predicate ok, std::string rule) {
  return CLI::Validator(
      [ok, rule](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !ok(v)) return rule + ", got " + text;
        return "";
      },
      "NUMBER");
}

CLI::Validator positive_number() { return number_where([](double v) { return v > 0.0; }, "must be a number > 0"); }

CLI::Validator probability() {
  return number_where([](double v) { return v >= 0.0 && v <= 1.0; }, "must be a number between 0 and 1");
}

// Training-loop flags: gradient accumulation, the wrapped torch scheduler and loss-scaler overflows.
// They build a config of the scheduler family's training-loop kind over the loader flags' DataLoader.
struct TrainingFlags {
  std::int64_t grad_accum = 1;
  std::string scheduler;
  std::int64_t warmup = 0;
  std::optional<std::int64_t> total_steps;
  double lr = 1e-3;
  std::optional<std::int64_t> step_size;
  double gamma = 0.1;
  std::vector<std::int64_t> overflow_steps;
  std::optional<double> overflow_prob;
  std::optional<std::int64_t> overflow_seed;
  std::vector<CLI::Option*> options;

  void add_to(CLI::App& app) {
    options = {
        app.add_option("--grad-accum", grad_accum, "gradient_accumulation_steps K (GradientAccumulationPlugin num_steps)")
            ->check(integer_at_least(1)),
        app.add_option("--warmup", warmup, "warm-up steps W of the schedule (onecycle: pct_start = W / total steps)")
            ->check(integer_at_least(0)),
        app.add_option("--total-steps", total_steps, "schedule length T (training_steps / OneCycleLR total_steps)")
            ->check(integer_at_least(1)),
        app.add_option("--lr", lr, "base lr (onecycle: max_lr); default 0.001")->check(positive_number()),
        app.add_option("--step-size", step_size, "StepLR step_size (--scheduler step)")->check(integer_at_least(1)),
        app.add_option("--gamma", gamma, "StepLR gamma (--scheduler step); default 0.1")->check(positive_number()),
        app.add_option("--overflow-steps", overflow_steps,
                       "micro-steps (global indices) where the loss scaler overflows; only syncing ones skip a step")
            ->delimiter(',')
            ->check(integer_at_least(0)),
        app.add_option("--overflow-prob", overflow_prob, "each micro-step overflows with probability P (needs --overflow-seed)")
            ->check(probability()),
        app.add_option("--overflow-seed", overflow_seed, "seed of the --overflow-prob draws"),
    };
    app.add_option("--scheduler", scheduler, "simulate the training loop with this lr schedule")
        ->check(CLI::IsMember({"linear", "cosine", "constant", "step", "onecycle"}));
  }

  bool enabled() const { return !scheduler.empty(); }

  // Raises ConfigError naming the flag when the combination does not make a schedule.
  void validate(const LoaderFlags& loader) const {
    if (!enabled()) {
      for (const CLI::Option* o : options) {
        if (o->count()) throw accel::trace::ConfigError(o->get_name() + ": needs --scheduler linear|cosine|constant|step|onecycle");
      }
      return;
    }
    if (loader.skip_batches) throw accel::trace::ConfigError("--skip-batches: is not simulated together with --scheduler yet");
    const bool needs_total = scheduler == "linear" || scheduler == "cosine" || scheduler == "onecycle";
    if (needs_total && !total_steps) throw accel::trace::ConfigError("--total-steps: is required with --scheduler " + scheduler);
    if (scheduler == "step" && !step_size) throw accel::trace::ConfigError("--step-size: is required with --scheduler step");
    if (scheduler == "onecycle" && warmup > *total_steps) {
      throw accel::trace::ConfigError("--warmup: must be <= --total-steps with --scheduler onecycle (pct_start = W / T)");
    }
    if (overflow_prob && !overflow_seed) throw accel::trace::ConfigError("--overflow-seed: is required with --overflow-prob");
    if (overflow_seed && !overflow_prob) throw accel::trace::ConfigError("--overflow-prob: is required with --overflow-seed");
  }

  Json schedule() const {
    Json s;
    if (scheduler == "linear" || scheduler == "cosine") {
      s["kind"] = scheduler == "linear" ? "linear_warmup" : "cosine_warmup";
      s["base_lr"] = lr;
      s["warmup_steps"] = warmup;
      s["training_steps"] = *total_steps;
    } else if (scheduler == "constant") {
      s["kind"] = "constant_warmup";
      s["base_lr"] = lr;
      s["warmup_steps"] = warmup;
    } else if (scheduler == "step") {
      s["kind"] = "step";
      s["base_lr"] = lr;
      s["step_size"] = *step_size;
      s["gamma"] = gamma;
    } else {
      s["kind"] = "onecycle_linear";
      s["base_lr"] = lr;
      s["max_lr"] = lr;
      s["total_steps"] = *total_steps;
      s["pct_start"] = warmup > 0 ? static_cast<double>(warmup) / static_cast<double>(*total_steps) : 0.3;
      s["div_factor"] = 25.0;
      s["final_div_factor"] = 10000.0;
    }
    return s;
  }

  Json config(const Json& loader) const {
    Json c;
    c["api"] = accel::trace::kSchedulerLoopApi;
    c["num_processes"] = loader["num_processes"];
    c["split_batches"] = loader["split_batches"];
    c["gradient_accumulation_steps"] = grad_accum;
    c["adjust_scheduler"] = true;
    c["sync_with_dataloader"] = true;
    c["step_with_optimizer"] = true;
    c["scheduler"] = schedule();
    c["dataset_len"] = loader["dataset_len"];
    c["batch_size"] = loader["batch_size"];
    c["micro_steps_per_epoch"] = nullptr;
    c["epochs"] = loader["epochs"];
    c["skipped_micro_steps"] = overflow_steps;
    c["multiprocess"] = false;
    c["drop_last"] = loader["drop_last"];
    c["even_batches"] = loader["even_batches"];
    if (overflow_prob) {
      c["overflow_prob"] = *overflow_prob;
      c["overflow_seed"] = *overflow_seed;
    }
    return c;
  }
};

std::optional<accel::trace::Trace> simulate(const accel::trace::CaseConfig& config, std::string& uncovered) {
  return std::visit(
      [&](const auto& c) -> std::optional<accel::trace::Trace> {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, accel::trace::UncoveredCase>) {
          uncovered = c.family;
          return std::nullopt;
        } else {
          return accel::sim::simulate(c);
        }
      },
      config);
}

int run_trace(const std::string& config_path, const LoaderFlags& flags, const TrainingFlags& training, bool from_flags) {
  Json file;
  Json config;
  if (from_flags) {
    training.validate(flags);
    config = training.enabled() ? training.config(flags.config()) : flags.config();
  } else {
    file = accel::trace::parse_text(read_source(config_path), config_path);
    if (!file.is_object() || !file.contains("config")) {
      throw accel::trace::ConfigError(config_path + ": must be a JSON object with a `config` object");
    }
    config = file["config"];
  }
  std::string uncovered;
  const auto trace = simulate(accel::trace::parse_config(config), uncovered);
  if (!trace) {
    std::cerr << "accel-sim: the `" << uncovered << "` family is not simulated by this build yet\n";
    return kExitBadInput;
  }
  const std::string name = file.is_object() && file.contains("case") && file["case"].is_string()
                               ? file["case"].get<std::string>()
                               : std::string("cli");
  Json out = accel::trace::to_json(name, config, *trace);
  if (file.is_object() && file.contains("family") && file["family"].is_string()) out["family"] = file["family"];
  std::cout << accel::trace::dump(out);
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

int run_summary(const LoaderFlags& flags, const TrainingFlags& training) {
  training.validate(flags);
  const auto parsed = accel::trace::parse_config(flags.config());
  const auto& config = std::get<accel::trace::LoaderCase>(parsed);
  const auto trace = accel::sim::simulate(config);
  if (trace.error) {
    throw accel::AccelerateError(accel::PyErrorType::ValueError, trace.error->where, trace.error->message);
  }
  std::string training_text;
  if (training.enabled()) {
    const auto training_case =
        std::get<accel::trace::SchedulerCase>(accel::trace::parse_config(training.config(flags.config())));
    const auto training_trace = accel::sim::simulate(training_case);
    if (training_trace.error) {
      const auto& e = *training_trace.error;
      std::cerr << "accel-sim: torch rejects this schedule (" << e.type << " in " << e.where << "): " << e.message << "\n";
      return kExitBadInput;
    }
    const auto& rank0 = std::get<std::vector<accel::trace::SchedulerRankRecord>>(training_trace.body).at(0);
    training_text = "\n" + accel::reports::render_training_terminal(accel::reports::summarize_training(training_case, rank0));
  }
  const auto& ranks = std::get<std::vector<accel::trace::RankRecord>>(trace.body);
  std::cout << accel::reports::render_terminal(config, accel::reports::summarize(config, ranks)) << training_text;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"accel-sim: what HuggingFace Accelerate's data loading does on every rank"};
  app.require_subcommand(0, 1);
  LoaderFlags flags;
  flags.add_to(app);
  TrainingFlags training;
  training.add_to(app);

  auto* trace_cmd = app.add_subcommand("trace", "simulate a config and print its trace (golden schema JSON)");
  std::string config_path;
  trace_cmd->add_option("--config", config_path, "JSON file with a `config` object (a golden case works; - for stdin)");
  LoaderFlags trace_flags;
  trace_flags.add_to(*trace_cmd);
  TrainingFlags trace_training;
  trace_training.add_to(*trace_cmd);

  auto* diff_cmd = app.add_subcommand("diff", "compare two trace files; exit 1 at the first divergence");
  std::string expected_path, actual_path;
  diff_cmd->add_option("EXPECTED", expected_path, "expected trace (- for stdin)")->required();
  diff_cmd->add_option("ACTUAL", actual_path, "actual trace (- for stdin)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "accel-sim: " << e.what() << "\n";
    return kExitBadInput;
  }

  try {
    if (*trace_cmd) {
      const bool from_flags = config_path.empty();
      if (from_flags && trace_flags.dataset_len < 0) {
        throw accel::trace::ConfigError("trace: give --config FILE or the loader flags (--dataset-len ...)");
      }
      return run_trace(config_path, trace_flags, trace_training, from_flags);
    }
    if (*diff_cmd) return run_diff(expected_path, actual_path);
    return run_summary(flags, training);
  } catch (const accel::trace::ConfigError& e) {
    std::cerr << "accel-sim: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const accel::AccelerateError& e) {
    std::cerr << "accel-sim: Accelerate rejects this configuration (" << accel::python_name(e.type()) << " in "
              << e.where() << "): " << e.message() << "\n";
    return kExitBadInput;
  }
}
