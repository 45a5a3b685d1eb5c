#include "rank_driver.hpp"
#include "cli/integer_flag.hpp"
#include "cli/text_flag.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace accel::cli {

void RankFlags::add_to(CLI::App& app) {
  app.add_option("--config", config_path, "JSON file with a `config` object instead of the loader flags");
  app.add_option("--backend", backend, "gloo (CPU, the default) or nccl (one GPU per rank)")
      ->check(CLI::IsMember({"gloo", "nccl"}));
  app.add_option("--out", out_path, "rank 0 writes the trace here (default: stdout, verdict on stderr)")
      ->check(non_empty("a FILE"));
  app.add_option("--timeout-s", timeout_s, "seconds a collective or the rendezvous may take (default 30)")
      ->check(CLI::Range(0.1, 86400.0));
  add_integer(app, "--die-at-step", die_at_step, "test only: a rank exits abruptly before this batch collective");
  add_integer(app, "--die-rank", die_rank, "test only: which rank --die-at-step kills (default: the last)");
  app.add_flag("--check-collectives", check_collectives,
               "check every collective of the transport with known values (no config needed)");
  app.add_flag("--loader-only", loader_only,
               "iterate the loader only, without the training step (no gradient all_reduce, so no training hang)");
  add_integer(app, "--grad-accum,--gradient-accumulation-steps", grad_accum,
              "training step: one gradient all_reduce per optimizer step, no_sync in between (default 1)");
  app.add_flag("--sync-each-batch", sync_each_batch,
               "training step: GradientAccumulationPlugin(sync_each_batch=True), an all_reduce every micro-step");
  app.add_flag("--join-uneven-inputs", join_uneven_inputs,
               "training step inside accelerator.join_uneven_inputs([model]) (torch Join; on only while even_batches "
               "is False)");
  app.add_option("--join-even-batches", join_even_batches,
                 "join_uneven_inputs(even_batches=true|false) overrides the loader's even_batches (default: none)");
  app.add_option("--distributed-type", distributed_type,
                 "the job Accelerate sees: MULTI_GPU (join_uneven_inputs works) or MULTI_CPU (it does nothing, as in "
                 "Accelerate 1.15); default: MULTI_CPU over gloo, MULTI_GPU over nccl")
      ->check(CLI::IsMember({"MULTI_CPU", "MULTI_GPU"}));
}

std::vector<std::string> RankFlags::driver_args(const trace::Json& config) const {
  std::vector<std::string> args;
  if (check_collectives) {
    args = {"--check-collectives"};
  } else if (!config_path.empty()) {
    args = {"--config", config_path};
  } else {
    args = {"--config-json", config.dump()};
  }
  args.insert(args.end(), {"--backend", backend, "--timeout-s", std::to_string(timeout_s)});
  if (!out_path.empty()) args.insert(args.end(), {"--out", out_path});
  if (die_at_step) args.insert(args.end(), {"--die-at-step", std::to_string(*die_at_step)});
  if (die_rank) args.insert(args.end(), {"--die-rank", std::to_string(*die_rank)});
  if (check_collectives) return args;
  if (loader_only) {
    args.push_back("--loader-only");
    return args;
  }
  args.insert(args.end(), {"--grad-accum", std::to_string(grad_accum)});
  if (sync_each_batch) args.push_back("--sync-each-batch");
  if (join_uneven_inputs) args.push_back("--join-uneven-inputs");
  if (join_even_batches) args.insert(args.end(), {"--join-even-batches", *join_even_batches ? "true" : "false"});
  if (!distributed_type.empty()) args.insert(args.end(), {"--distributed-type", distributed_type});
  return args;
}

std::string rank_driver_path() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto driver = (ec ? std::filesystem::path(".") : self.parent_path()) / "accel-sim-rank";
  if (::access(driver.c_str(), X_OK) != 0) {
    throw trace::ConfigError("real ranks need accel-sim-rank next to accel-sim (" + driver.string() +
                             " is missing; build it: cmake --build build --target accel-sim-rank)");
  }
  return driver.string();
}

int exec_rank_driver(const std::vector<std::string>& args) {
  const std::string path = rank_driver_path();
  std::vector<char*> argv{const_cast<char*>(path.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  ::execv(path.c_str(), argv.data());
  std::cerr << "accel-sim: cannot start " << path << ": " << std::strerror(errno) << "\n";
  return 2;
}

}  // namespace accel::cli
