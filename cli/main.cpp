// accel-sim: the command line. Subcommands: (none) what-if summary, trace, diff.
//
// Exit codes: 0 success / traces equal, 1 traces differ, 2 bad input (flags, config, trace files) or a
// configuration Accelerate itself rejects. No LibTorch here: the process must start in milliseconds.
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli/training_flags.hpp"
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

int run_summary(const LoaderFlags& flags, const accel::cli::TrainingFlags& training) {
  training.validate(flags.skip_batches.has_value());
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
  accel::cli::TrainingFlags training;
  training.add_to(app);

  auto* trace_cmd = app.add_subcommand("trace", "simulate a config and print its trace (golden schema JSON)");
  std::string config_path;
  trace_cmd->add_option("--config", config_path, "JSON file with a `config` object (a golden case works; - for stdin)");
  LoaderFlags trace_flags;
  trace_flags.add_to(*trace_cmd);
  accel::cli::TrainingFlags trace_training;
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
