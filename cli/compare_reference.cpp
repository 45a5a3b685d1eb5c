#include "compare_reference.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <variant>
#include <vector>

#include "sim/simulator.hpp"
#include "trace/trace_diff.hpp"

namespace accel::cli {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> env_path(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return fs::path(v);
}

// The folder holding golden/record: $ACCEL_SIM_ROOT, else an installed tree's <prefix>/share/accel-sim (checked
// first, so a prefix that happens to sit inside a checkout still uses its own copy), else the nearest checkout
// above the executable.
std::optional<fs::path> find_root() {
  if (auto root = env_path("ACCEL_SIM_ROOT")) return *root;
  std::error_code ec;
  fs::path dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  if (ec) return std::nullopt;
  const fs::path installed = dir.parent_path() / "share" / "accel-sim";
  if (fs::exists(installed / "golden" / "record")) return installed;
  for (; !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / "golden" / "record")) return dir;
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

// The rule golden/reference_venv.sh applies too: a checkout keeps its environment in build/, an installed
// tree (possibly read-only) in the user's cache.
fs::path default_venv(const fs::path& root) {
  if (fs::exists(root / "CMakeLists.txt")) return root / "build" / "reference-venv";
  if (auto cache = env_path("XDG_CACHE_HOME")) return *cache / "accel-sim" / "reference-venv";
  return env_path("HOME").value_or(fs::path("/")) / ".cache" / "accel-sim" / "reference-venv";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// torch_version for the simulator from the reference's torch.__version__ ("1.13.0a0" -> "1.13").
std::string simulator_torch_version(const std::string& reference_torch) {
  return reference_torch.rfind("1.", 0) == 0 ? "1.13" : "2.6";
}

struct Run {
  int status = -1;  // exit status, or -1 when it did not exit normally
  std::string out;
};

// Runs argv with stdout captured (stderr passes through).
Run run_capture(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  Run run;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      run.out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace

int compare_with_reference(const CompareRequest& request, std::ostream& out, std::ostream& err) {
  const auto root = find_root();
  if (!root) {
    err << "accel-sim: cannot find golden/record in ../share/accel-sim or above this executable: set ACCEL_SIM_ROOT "
           "to the accel-sim checkout\n";
    return kCompareCannotRun;
  }
  const fs::path venv = env_path("ACCEL_SIM_REFERENCE_VENV").value_or(default_venv(*root));
  const fs::path versions_file = venv / "VERSIONS.json";
  if (!fs::exists(venv / "bin" / "python") || !fs::exists(versions_file)) {
    err << "accel-sim: reference environment missing: run golden/setup-reference (looked in " << venv.string()
        << ")\n";
    return kCompareCannotRun;
  }
  trace::Json versions;
  try {
    versions = trace::parse_text(read_file(versions_file), versions_file.string());
  } catch (const trace::ConfigError& e) {
    err << "accel-sim: " << e.what() << ": run golden/setup-reference again\n";
    return kCompareCannotRun;
  }
  const std::string reference_torch = versions.value("torch", std::string());
  const std::string reference_accelerate = versions.value("accelerate", std::string());

  trace::Json config = request.config;
  if (!config.contains("torch_version")) config["torch_version"] = simulator_torch_version(reference_torch);
  // The reference's Accelerate is the release recorded, so it is the release simulated (the default is the newest);
  // the recorder gets the config as given (its Accelerate is the one it runs).
  const trace::Json simulated_config =
      reference_accelerate.empty()
          ? config
          : trace::config_as_recorded(
                {{"config", config}, {"reference", {{"accelerate_version", reference_accelerate}}}});

  // Validate before paying for the reference run: a config the simulator cannot read is a bad input either way.
  const auto simulated = accel::sim::simulate_case(trace::parse_config(simulated_config));

  // The recorder reads the config from a file (a pipe could fill up both ways for large batch_sampler lists).
  std::string tmpl = (fs::temp_directory_path() / "accel-sim-compare-XXXXXX.json").string();
  const int fd = mkstemps(tmpl.data(), 5);
  if (fd < 0) {
    err << "accel-sim: cannot create a temporary file: " << std::strerror(errno) << "\n";
    return kCompareCannotRun;
  }
  close(fd);
  const fs::path input = tmpl;
  {
    trace::Json doc;
    doc["case"] = "compare";
    doc["config"] = config;
    std::ofstream(input) << doc.dump() << "\n";
  }
  // golden/record then looks exactly where this process looked.
  setenv("ACCEL_SIM_REFERENCE_VENV", venv.c_str(), 1);
  Run run;
  try {
    run = run_capture({(*root / "golden" / "record").string(), input.string(), "--case", "compare"});
  } catch (const std::exception& e) {
    fs::remove(input);
    err << "accel-sim: cannot run golden/record: " << e.what() << "\n";
    return kCompareCannotRun;
  }
  fs::remove(input);
  if (run.status != 0) {
    err << "accel-sim: golden/record failed (exit " << run.status << "); nothing to compare\n";
    return kCompareCannotRun;
  }
  const trace::Json recorded = trace::parse_text(run.out, "golden/record output");
  const trace::Json mine = trace::to_json("compare", config, simulated);
  const auto d = trace::first_divergence(recorded, mine);
  if (!d) {
    out << "identical\n";
    return kCompareIdentical;
  }
  out << "accel-sim differs from Accelerate " << reference_accelerate << " (torch " << reference_torch
      << "): " << trace::describe(*d) << "\n"
      << "(expected = the real Accelerate, actual = accel-sim)\n";
  return kCompareDiffer;
}

}  // namespace accel::cli
