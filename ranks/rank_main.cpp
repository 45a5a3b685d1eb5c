// accel-sim-rank: one real rank of a data-loading job, under torchrun or `accel-sim launch`.
//
// Reads RANK/WORLD_SIZE/LOCAL_RANK/MASTER_ADDR/MASTER_PORT, rendezvouses through c10d's TCPStore, runs
// the same core as the simulator (sim::simulate_rank) over a real transport (Gloo on CPU, NCCL on GPU),
// then trains on what the loader yields as a DDP job would (sim/ddp_training.hpp: a gradient all_reduce
// per optimizer step, no_sync while accumulating, join_uneven_inputs when asked), and sends its record
// to rank 0, which writes the job's trace, diffs it against the in-process simulator and compares where
// the real ranks blocked with where the simulator predicted they would: "identical to the simulator's
// prediction" (exit 0) only for a job that completed as predicted; a hang the simulator predicted exits 5,
// naming the ranks and the step; any difference exits 1. Other exit codes: 2 bad input or environment (a missing
// variable, no GPU), 3 the test fault --die-at-step, 4 the job failed (a peer died, gave up or timed out; the message
// names it), 6 the ranks of a tp / cp group received different batches (ranks/mesh_group_check.hpp: the job ran as
// predicted, and trains wrong). This executable links LibTorch; `accel-sim` does not.
#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>
#include <tuple>

#include "collective_check.hpp"
#include "core/error.hpp"
#include "fault_injector.hpp"
#include "gloo_communicator.hpp"
#include "mesh_group_check.hpp"
#include "nccl_communicator.hpp"
#include "peer_monitor.hpp"
#include "rank_env.hpp"
#include "record_exchange.hpp"
#include "rendezvous.hpp"
#include "sim/ddp_training.hpp"
#include "sim/simulator.hpp"
#include "trace/decimal_integer.hpp"
#include "trace/input_limits.hpp"
#include "trace/trace_diff.hpp"
#include "trace/trace_json.hpp"
#include "training_summary.hpp"

namespace {

using accel::trace::Json;

constexpr int kExitDiffer = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitJobFailed = 4;
constexpr int kExitHang = 5;
constexpr int kExitMeshGroupSplit = 6;

// Ends the process without destructors: a transport may still hold an operation that waits for a dead
// peer (joining Gloo's worker threads or finalizing NCCL would block), and LibTorch's static
// destructors are slow. Everything this rank says is flushed first, and checked: a trace or verdict that
// did not reach stdout (/dev/full, a full disk) is bad output, exit 2, whatever the job did.
[[noreturn]] void finish(int code) {
  std::cout.flush();
  if (!std::cout) {
    const int error = errno;
    std::cerr << "accel-sim-rank: writing to stdout failed (" << std::strerror(error)
              << "): the trace or verdict is lost\n";
    code = kExitBadInput;
  }
  std::cerr.flush();
  if (!std::cerr) code = kExitBadInput;
  std::fflush(nullptr);
  ::_exit(code);
}

// The trace to --out, every byte of it, the file closed: /dev/full and a full disk fail at the write or the
// close, not at the open. ConfigError (exit 2) naming the path otherwise.
void write_out(const std::string& path, const std::string& text) {
  const auto refuse = [&](const std::string& what, int error) {
    throw accel::trace::ConfigError("--out " + path + ": " + what + " (" + std::strerror(error) + ")");
  };
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) refuse("cannot open it to write the trace", errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;
      ::close(fd);
      refuse("writing the trace failed", error);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) refuse("writing the trace failed", errno);
}

// An integer flag by the one strict rule (trace/decimal_integer.hpp): `--die-at-step 010` is refused, not 8.
CLI::Validator strict_integer(std::int64_t min_value, std::int64_t max_value = std::numeric_limits<std::int64_t>::max()) {
  return CLI::Validator(
      [min_value, max_value](std::string& text) {
        return accel::trace::read_decimal_integer(text, min_value, max_value).problem;
      },
      "INT");
}

// Bounded like accel-sim's reads: a config path may name /dev/zero.
std::string read_file(const std::string& path) { return accel::trace::read_input(path); }

struct Options {
  std::string config_path;
  std::string config_json;
  std::string backend = "gloo";
  std::string out_path;
  double timeout_s = 30;
  std::optional<std::int64_t> die_at_step;
  std::optional<std::int64_t> die_rank;
  bool check_collectives = false;
  bool loader_only = false;  // iterate the loader without a training step (no gradient collectives)
  accel::sim::TrainingLoop loop;
};

struct Job {
  Json config;
  accel::trace::LoaderCase loader;
  accel::ranks::TraceOrigin origin;
};

Job read_job(const Options& o, const accel::ranks::RankEnv& env) {
  Job job;
  Json file;
  if (!o.config_json.empty()) {
    job.config = accel::trace::parse_text(o.config_json, "--config-json");
  } else {
    file = accel::trace::parse_text(read_file(o.config_path), o.config_path);
    if (!file.is_object() || !file.contains("config") || !file["config"].is_object()) {
      throw accel::trace::ConfigError(o.config_path + ": must be a JSON object with a `config` object");
    }
    job.config = file["config"];
    if (file.contains("case") && file["case"].is_string()) job.origin.case_name = file["case"].get<std::string>();
    if (file.contains("family") && file["family"].is_string()) job.origin.family = file["family"].get<std::string>();
  }
  const auto parsed = accel::trace::parse_config(job.config);
  const auto* loader = std::get_if<accel::trace::LoaderCase>(&parsed);
  if (!loader) {
    throw accel::trace::ConfigError("run: only data-loader configs (prepare_data_loader) run on real ranks");
  }
  if (loader->prepare.num_processes != env.world_size) {
    throw accel::trace::ConfigError(
        "run: the config has num_processes=" + std::to_string(loader->prepare.num_processes) +
        " but WORLD_SIZE=" + std::to_string(env.world_size));
  }
  job.loader = *loader;
  job.origin.backend = o.backend;
  job.origin.world_size = env.world_size;
  return job;
}

std::unique_ptr<accel::Communicator> make_transport(const std::string& backend, accel::ranks::Rendezvous& rendezvous,
                                                    accel::ranks::PeerMonitor& monitor) {
  if (backend == "gloo") return std::make_unique<accel::ranks::GlooCommunicator>(rendezvous, monitor);
#ifdef ACCEL_WITH_NCCL
  return std::make_unique<accel::ranks::NcclCommunicator>(rendezvous, monitor);
#else
  throw accel::ranks::DeviceUnavailable("--backend nccl: this build has no NCCL (configured with WITH_NCCL=OFF)");
#endif
}

// Where the real ranks blocked against where the simulator predicted: the same ranks, collective and step.
bool same_outcome(const accel::sim::TrainingVerdict& a, const accel::sim::TrainingVerdict& b) {
  const auto where = [](const accel::sim::TrainingVerdict& v) {
    return v.hang ? std::make_tuple(v.hang->epoch, v.hang->step, v.hang->collective)
                  : std::make_tuple(std::int64_t{-1}, std::int64_t{-1}, std::string());
  };
  const auto step_of = [](const accel::sim::TrainingVerdict& v) {
    return v.out_of_step ? std::make_pair(v.out_of_step->epoch, v.out_of_step->step)
                         : std::make_pair(std::int64_t{-1}, std::int64_t{-1});
  };
  return a.completed == b.completed && a.waiting_ranks == b.waiting_ranks && where(a) == where(b) &&
         step_of(a) == step_of(b) && a.error.has_value() == b.error.has_value();
}

// Whether every rank makes the mesh group check after its loop: a job with a mesh that the simulator predicts to
// complete (a rank left blocked in a collective, or a configuration Accelerate rejects, has nothing to compare); the
// same answer on every rank, since each reads the same config.
bool checks_mesh_groups(const Job& job, const Options& o) {
  if (!job.loader.prepare.torch_device_mesh) return false;
  if (o.loader_only) {
    const auto predicted = accel::sim::simulate(job.loader);
    if (predicted.error) return false;
    const auto* ranks = std::get_if<std::vector<accel::trace::RankRecord>>(&predicted.body);
    if (!ranks) return false;
    for (const auto& r : *ranks) {
      if (r.error) return false;
      for (const auto& pass : r.epochs)
        if (pass.error) return false;
    }
    return true;
  }
  const auto verdict = accel::sim::training_verdict(accel::sim::simulate_training_ranks(job.loader, o.loop));
  return verdict.completed && !verdict.error;
}

Json mesh_group_json(const accel::ranks::MeshGroupCheck& c) {
  Json j;
  j["group"] = c.group;
  j["batches"] = c.batches;
  j["differs_from"] = c.differs_from ? Json(*c.differs_from) : Json(nullptr);
  j["epoch"] = c.epoch;
  j["step"] = c.step;
  return j;
}

std::string ranks_list(const std::vector<std::int64_t>& ranks) {
  std::string s;
  for (const std::int64_t r : ranks) s += (s.empty() ? "" : ",") + std::to_string(r);
  return s;
}

// Rank `rank`'s batch at (epoch, step) in the assembled trace, as JSON text; "no batch" where it has none.
std::string batch_text(const Json& trace, std::int64_t rank, std::int64_t epoch, std::int64_t step) {
  for (const Json& r : trace.value("ranks", Json::array())) {
    if (r.value("rank", std::int64_t{-1}) != rank) continue;
    for (const Json& pass : r.value("epochs", Json::array())) {
      if (pass.value("epoch", std::int64_t{-1}) != epoch) continue;
      const Json& batches = pass.at("batches");
      if (step >= 0 && step < static_cast<std::int64_t>(batches.size()))
        return batches[static_cast<std::size_t>(step)].dump();
    }
  }
  return "no batch";
}

// After a job that ran as predicted: what the groups' all_gather found. Exit 6 for a group whose ranks received
// different batches (the simulator's error[mesh-group-split], seen on the transport), else 0.
int conclude_mesh_groups(const std::vector<Json>& outcomes, const Json& trace, const Options& o,
                         std::ostream& verdict) {
  std::string groups;
  for (const Json& outcome : outcomes) {
    if (!outcome.contains("mesh_group")) return 0;
    const Json& c = outcome["mesh_group"];
    const auto group = c.at("group").get<std::vector<std::int64_t>>();
    const auto rank = outcome.at("rank").get<std::int64_t>();
    if (!c.at("differs_from").is_null()) {
      const auto other = c.at("differs_from").get<std::int64_t>();
      const auto epoch = c.at("epoch").get<std::int64_t>(), step = c.at("step").get<std::int64_t>();
      verdict << "error[mesh-group-split] on the real ranks: the model-parallel group " << ranks_list(group)
              << " (the ranks that agree on every data-parallel dimension of the mesh) received different batches, "
                 "found by an all_gather of batch digests over "
              << o.backend << ": at epoch " << epoch << " step " << step << " rank " << rank << " got "
              << batch_text(trace, rank, epoch, step) << ", rank " << other << " got "
              << batch_text(trace, other, epoch, step)
              << "; one tensor- / context-parallel step would be computed from different data (exit "
              << kExitMeshGroupSplit << ")\n";
      return kExitMeshGroupSplit;
    }
    if (!group.empty() && group.front() == rank) groups += (groups.empty() ? "" : "; ") + ranks_list(group);
  }
  verdict << "mesh: every model-parallel group (" << groups
          << ") received identical batches on the real ranks (an all_gather of batch digests over " << o.backend
          << ")\n";
  return 0;
}

constexpr const char* kIdentical = "identical to the simulator's prediction";

// Rank 0's end of the job: the trace, its diff against the in-process simulator, and the training
// loop's outcome against the simulator's prediction.
int conclude(const Job& job, const std::vector<Json>& outcomes, const Options& o) {
  const Json real =
      accel::ranks::assemble_trace(job.config, accel::sim::reports_error_rank(job.loader), outcomes, job.origin);
  const bool trace_on_stdout = o.out_path.empty();
  if (trace_on_stdout) {
    // Flushed before the verdict is written to stderr, so a launcher reading both sees the trace first.
    std::cout << accel::trace::dump(real) << std::flush;
  } else {
    write_out(o.out_path, accel::trace::dump(real));
  }
  Json simulated = accel::trace::to_json(job.origin.case_name, job.config,
                                         accel::sim::simulate(accel::sim::loader_under_loop(job.loader, o.loop)));
  if (job.origin.family) simulated["family"] = *job.origin.family;
  // The verdict goes where it does not spoil a trace printed on stdout.
  std::ostream& verdict = trace_on_stdout ? std::cerr : std::cout;
  const auto completed = [&] { return conclude_mesh_groups(outcomes, real, o, verdict); };
  if (const auto d = accel::trace::first_divergence(simulated, real)) {
    verdict << "real ranks differ from the simulator: " << accel::trace::describe(*d) << "\n";
    return kExitDiffer;
  }
  if (o.loader_only) {
    verdict << kIdentical << "\n";
    return completed();
  }
  std::vector<accel::sim::TrainingRank> observed_ranks;
  for (const Json& outcome : outcomes)
    observed_ranks.push_back(accel::ranks::training_from_json(outcome.at("training")));
  const auto predicted_ranks = accel::sim::simulate_training_ranks(job.loader, o.loop);
  const auto observed = accel::sim::training_verdict(observed_ranks);
  const auto predicted = accel::sim::training_verdict(predicted_ranks);
  const std::string seen = accel::ranks::training_summary(observed, observed_ranks);
  // Every rank's own counts as well: micro-steps, collectives, optimizer and scheduler steps.
  std::string rank_differs;
  for (std::size_t r = 0; r < observed_ranks.size() && r < predicted_ranks.size() && rank_differs.empty(); ++r) {
    const auto& a = observed_ranks[r];
    const auto& b = predicted_ranks[r];
    if (a.micro_steps != b.micro_steps || a.gradient_all_reduces != b.gradient_all_reduces ||
        a.shadowed_all_reduces != b.shadowed_all_reduces || a.optimizer_steps != b.optimizer_steps ||
        a.scheduler_steps != b.scheduler_steps) {
      rank_differs = "rank " + std::to_string(r) + " made " + std::to_string(a.gradient_all_reduces) +
                     " gradient all_reduces, " + std::to_string(a.optimizer_steps) + " optimizer and " +
                     std::to_string(a.scheduler_steps) + " scheduler steps; the simulator " +
                     std::to_string(b.gradient_all_reduces) + ", " + std::to_string(b.optimizer_steps) + " and " +
                     std::to_string(b.scheduler_steps);
    }
  }
  if (!rank_differs.empty()) {
    verdict << "real ranks differ from the simulator's training loop: " << rank_differs << "\n";
    return kExitDiffer;
  }
  if (!same_outcome(observed, predicted)) {
    verdict << "real ranks differ from the simulator's training loop: observed " << seen << "; predicted "
            << accel::ranks::training_summary(predicted, predicted_ranks) << "\n";
    return kExitDiffer;
  }
  if (observed.error && !observed.hang) {
    // Accelerate raised on every rank as it does for this config (prepare, or the pass): the trace above
    // holds it, equal to the simulator's, and no rank was left waiting.
    verdict << kIdentical << " (" << seen << ", as Accelerate does)\n";
    return completed();
  }
  if (!observed.completed) {
    verdict << (observed.hang ? "hang: " : "failed: ") << seen << " (as the simulator predicted; exit "
            << (observed.hang ? kExitHang : kExitJobFailed) << ")\n";
    return observed.hang ? kExitHang : kExitJobFailed;
  }
  verdict << kIdentical << " (" << seen << ")\n";
  return completed();
}

// What every rank of one job runs, digested into the job's identity (rendezvous.hpp): two jobs without a job
// id on one MASTER_PORT are told apart unless they run the same thing.
std::string job_fingerprint(const Options& o, const Job& job) {
  if (o.check_collectives) return "the collectives self-check over " + o.backend;
  const auto& l = o.loop;
  const std::string what = job.config.dump() + "|" + o.backend + "|" + (o.loader_only ? "loader-only" : "train") + "|" +
                           std::to_string(l.gradient_accumulation_steps) + "|" + std::to_string(l.sync_each_batch) +
                           "|" + std::to_string(l.join_uneven_inputs) + "|" +
                           (l.join_even_batches ? std::to_string(*l.join_even_batches) : "-") + "|" +
                           std::to_string(l.multi_device);
  return "config " + accel::ranks::digest(what);
}

}  // namespace

int main(int argc, char** argv) {
  // glog (c10d's and Gloo's logging) initialised before anything of LibTorch runs.
  accel::ranks::init_logging(argc > 0 ? argv[0] : "accel-sim-rank");
  // A peer's closed socket must be an error to report, not a SIGPIPE that kills this rank silently.
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{"accel-sim-rank: one real rank of a data-loading job (run it through `accel-sim run` or `launch`)"};
  Options o;
  auto* config_opt = app.add_option("--config", o.config_path, "JSON file with a `config` object (- for stdin)");
  app.add_option("--config-json", o.config_json, "the `config` object itself")->excludes(config_opt);
  app.add_option("--backend", o.backend, "gloo (CPU) or nccl (one GPU per rank)")
      ->check(CLI::IsMember({"gloo", "nccl"}));
  app.add_option("--out", o.out_path, "rank 0 writes the trace here instead of stdout")
      ->check(CLI::Validator(
          [](std::string& path) { return path.empty() ? std::string("must name a file, got an empty path") : ""; },
          "FILE"));
  app.add_option("--timeout-s", o.timeout_s, "seconds a collective or the rendezvous may take")
      ->check(CLI::Range(0.1, 86400.0));
  app.add_option("--die-at-step", o.die_at_step, "test only: exit abruptly before this batch collective (from 0)")
      ->check(strict_integer(0));
  app.add_option("--die-rank", o.die_rank, "test only: the rank that dies (default: the last)")
      ->check(strict_integer(0));
  app.add_flag("--check-collectives", o.check_collectives,
               "check every collective of the transport with known values instead of running a config");
  app.add_flag("--loader-only", o.loader_only, "iterate the loader only: no training step, no gradient all_reduce");
  app.add_option("--grad-accum", o.loop.gradient_accumulation_steps,
                 "gradient_accumulation_steps: one gradient all_reduce per optimizer step (no_sync in between)")
      ->check(strict_integer(1, accel::trace::kMaxCount));
  app.add_flag("--sync-each-batch", o.loop.sync_each_batch, "GradientAccumulationPlugin(sync_each_batch=True)");
  app.add_flag("--join-uneven-inputs", o.loop.join_uneven_inputs,
               "train inside accelerator.join_uneven_inputs([model])");
  app.add_option("--join-even-batches", o.loop.join_even_batches,
                 "join_uneven_inputs(even_batches=...): true or false (default: the Accelerator's)");
  std::string distributed_type;
  app.add_option("--distributed-type", distributed_type, "MULTI_CPU or MULTI_GPU (default: by the backend)")
      ->check(CLI::IsMember({"MULTI_CPU", "MULTI_GPU"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "accel-sim-rank: " << e.what() << "\n";
    return kExitBadInput;
  }

  // Accelerator.multi_device: join_uneven_inputs only works on multi-device (GPU) jobs.
  o.loop.multi_device = distributed_type.empty() ? o.backend == "nccl" : distributed_type == "MULTI_GPU";

  accel::ranks::RankEnv env;
  Job job;
  try {
    env = accel::ranks::rank_env_from_process();
    if (!o.check_collectives) {
      if (o.config_path.empty() && o.config_json.empty())
        throw accel::trace::ConfigError("give --config FILE or --config-json");
      job = read_job(o, env);
    }
  } catch (const std::exception& e) {
    std::cerr << "accel-sim-rank: " << e.what() << "\n";
    finish(kExitBadInput);
  }

  const std::string who = "accel-sim-rank: rank " + std::to_string(env.rank) + ": ";
  const auto timeout = std::chrono::milliseconds(static_cast<std::int64_t>(o.timeout_s * 1000));
  std::unique_ptr<accel::ranks::Rendezvous> rendezvous;
  std::unique_ptr<accel::ranks::PeerMonitor> monitor;
  // Out here, not in the try block: leaving that block for the catch handler would destroy it there, and
  // ~ProcessGroupGloo joins worker threads still waiting for a dead or stopped peer (until Gloo's own
  // timeout, seconds after the monitor named the peer). finish() exits without destructors.
  std::unique_ptr<accel::Communicator> transport;
  bool announced = false;  // rank 0 told the others that every record is in
  try {
    rendezvous = std::make_unique<accel::ranks::Rendezvous>(env, timeout, job_fingerprint(o, job));
    const auto timing = accel::ranks::MonitorTiming::for_timeout(timeout);
    monitor = std::make_unique<accel::ranks::PeerMonitor>(rendezvous->connect(timing.stale_after), env.rank,
                                                          env.world_size, timing);
    monitor->await_everyone();
    transport = make_transport(o.backend, *rendezvous, *monitor);
    if (o.check_collectives) {
      const auto problems = accel::ranks::check_collectives(*transport);
      for (const auto& p : problems) std::cerr << who << p << "\n";
      monitor->leave();
      accel::ranks::acknowledge(rendezvous->store(), env.rank);
      if (env.rank == 0) accel::ranks::await_acknowledgements(rendezvous->store(), *monitor);
      if (problems.empty() && env.rank == 0)
        std::cout << "collectives ok (" << o.backend << ", " << env.world_size << " ranks)\n";
      finish(problems.empty() ? 0 : kExitDiffer);
    }

    const bool dies = o.die_at_step && o.die_rank.value_or(env.world_size - 1) == env.rank;
    std::optional<accel::ranks::FaultInjector> fault;
    accel::Communicator* comm = transport.get();
    if (dies) comm = &fault.emplace(*transport, *o.die_at_step);

    std::optional<accel::trace::RankRecord> record;
    std::optional<accel::trace::ErrorRecord> case_error;
    std::optional<accel::sim::TrainingRank> training;
    if (o.loader_only) {
      try {
        record = accel::sim::simulate_rank(job.loader, env.rank, comm);
      } catch (const accel::AccelerateError& e) {
        // A configuration Accelerate rejects: part of the trace, as in the simulator.
        case_error = accel::sim::case_error(job.loader, e);
      }
    } else {
      // The loader's batches, then a DDP step on each: a rank that runs out of batches leaves the others
      // blocked in a real all_reduce, which the peer monitor names (the trace and the verdict record it).
      training = accel::sim::train_rank(job.loader, env.rank, *comm, o.loop);
      record = training->record;
      if (!record) case_error = training->error;
    }
    if (dies) fault->die_now();
    // simulate_rank records a failed collective as a "Hang" in the trace; only a dead or silent peer
    // (as opposed to one that finished, which the simulator shows too) makes the job fail.
    if (monitor->fatal()) throw accel::ranks::PeerFailure(*monitor->fatal(), {});
    std::optional<accel::ranks::MeshGroupCheck> mesh_group;
    if (checks_mesh_groups(job, o)) {
      mesh_group =
          accel::ranks::check_mesh_group(*comm, *job.loader.prepare.torch_device_mesh, record ? &*record : nullptr);
    }
    monitor->leave();
    Json outcome = accel::ranks::outcome_json(job.config, env.rank, record, case_error);
    if (training) outcome["training"] = accel::ranks::training_json(*training);
    if (mesh_group) outcome["mesh_group"] = mesh_group_json(*mesh_group);
    accel::ranks::post_outcome(rendezvous->store(), env.rank, outcome);
    if (env.rank != 0) {
      accel::ranks::await_complete(rendezvous->store(), *monitor);
      accel::ranks::acknowledge(rendezvous->store(), env.rank);
      finish(0);
    }
    const auto outcomes = accel::ranks::collect_outcomes(rendezvous->store(), *monitor);
    accel::ranks::announce_complete(rendezvous->store());
    announced = true;
    const int verdict = conclude(job, outcomes, o);
    try {
      accel::ranks::await_acknowledgements(rendezvous->store(), *monitor);
    } catch (const accel::ranks::PeerFailure& e) {
      // Every record is in: the trace and verdict stand; the late failure is worth a line.
      std::cerr << who << "after the job: " << e.what() << "\n";
    }
    finish(verdict);
  } catch (const std::exception& e) {
    // No usable GPU or an unwritable --out is this rank's input; anything else fails the job.
    const bool bad_input =
        dynamic_cast<const accel::ranks::DeviceUnavailable*>(&e) || dynamic_cast<const accel::trace::ConfigError*>(&e);
    const std::string why = accel::ranks::torch_message(e);
    std::cerr << who << (bad_input ? "" : "the job failed: ") << why << "\n";
    if (monitor) {
      // Rank 0 failed after the others were told the job is complete (an --out it cannot write): their part
      // is done, so they get to acknowledge and exit 0 before the store goes away with this rank.
      if (env.rank == 0 && announced) {
        try {
          accel::ranks::await_acknowledgements(rendezvous->store(), *monitor,
                                               monitor->timing().stale_after + std::chrono::seconds(2));
        } catch (const std::exception&) {
        }
      }
      monitor->give_up(why);
      // Rank 0 hosts the store: it stays until the others have read why.
      if (env.rank == 0) monitor->linger(monitor->timing().stale_after + std::chrono::seconds(2));
    }
    finish(bad_input ? kExitBadInput : kExitJobFailed);
  } catch (...) {
    std::cerr << who << "the job failed: an unknown exception\n";
    finish(kExitJobFailed);
  }
}
