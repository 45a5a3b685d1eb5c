// Issue 31: a seeded generator of accel-sim command lines over every flag of every command, from the option
// list cli_main itself builds (accel::cli::command_line_options) and the integer flags' bounds
// (cli/integer_flag.hpp), so a flag added later is fuzzed without editing this file.
//
//   fuzz_cli ACCEL_SIM CASES [--seed S] [--memory-cap-mb M] [--timeout-s T] [--corpus DIR] [--surface NAME]
//
// --surface flags (the default) draws each flag of each command alone; trainer, hf, workers, mesh, releases,
// recorded and config-file draw a whole job of that surface (tests/fuzz/fuzz_surfaces.hpp); all cycles through
// every one of them, and the outcome table is printed per surface.
//
// Each case is one command (the what-if or a subcommand) with 1-8 of its options. A value is either one the
// flag's rule accepts (small counts, the bound itself, list members, real files) or one it must refuse: `010`,
// `0x10`, `''`, the bound +/- 1, 2^64, an empty or separator-only list, a FIFO, a self-linked folder,
// /dev/full for an output. A case with a value that must be refused must exit 2; any case must exit 0-2 (run
// and launch also 3-5) within T seconds, under a memory cap of M MiB (RLIMIT_AS, or ASan's own limit in the
// sanitizer build), never by a signal or as an internal error (70). Outcomes are counted and printed; the
// run fails on the first finding and prints the command to replay it.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_main.hpp"
#include "cli/integer_flag.hpp"
#include "fuzz_surfaces.hpp"

namespace {

namespace fs = std::filesystem;
using Rng = std::mt19937_64;

struct Scratch {
  std::string dir;
  std::string config;    // a small trace config (valid)
  std::string yaml;      // a small `accelerate config` file
  std::string fifo;      // must be refused as an input, never opened
  std::string loop_dir;  // a folder holding a link to itself
  std::string golden;    // a folder with one valid case
  std::string fifo_dir;  // a folder whose *.json is a FIFO
  std::string out;       // a writable output path
};

Scratch make_scratch(const std::string& corpus_dir) {
  char tmpl[] = "/tmp/fuzz_cli.XXXXXX";
  Scratch s;
  s.dir = ::mkdtemp(tmpl);
  s.config = s.dir + "/config.json";
  std::ofstream(s.config)
      << R"({"case":"fuzz","config":{"api":"prepare_data_loader","dataset_len":13,"batch_size":2,"num_processes":2}})";
  s.yaml = s.dir + "/accelerate.yaml";
  std::ofstream(s.yaml) << "num_processes: 4\ndistributed_type: MULTI_GPU\nmixed_precision: 'no'\n";
  s.fifo = s.dir + "/fifo.json";
  ::mkfifo(s.fifo.c_str(), 0600);
  s.loop_dir = s.dir + "/loop";
  ::symlink(s.loop_dir.c_str(), s.loop_dir.c_str());
  s.golden = s.dir + "/golden";
  fs::create_directory(s.golden);
  // The smallest-named small case, so that the seed alone decides the run (a directory's order is the file
  // system's).
  std::error_code ec;
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(corpus_dir, ec)) {
    if (e.path().extension() == ".json" && e.file_size(ec) < 4096) cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());
  if (!cases.empty()) fs::copy_file(cases.front(), s.golden + "/" + cases.front().filename().string(), ec);
  s.fifo_dir = s.dir + "/fifo_golden";
  fs::create_directory(s.fifo_dir);
  ::mkfifo((s.fifo_dir + "/case.json").c_str(), 0600);
  s.out = s.dir + "/out.txt";
  return s;
}

template <class T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[rng() % v.size()];
}

std::string integer_text(std::int64_t v) { return std::to_string(v); }

// The values one option's rule accepts and those it must refuse.
struct Values {
  std::vector<std::string> accepted;
  std::vector<std::string> refused;
};

Values integer_values(const accel::cli::IntegerFlag& flag, bool list, Rng& rng) {
  const std::int64_t lo = flag.min, hi = flag.max;
  Values v;
  // Accepted: mostly small (fast to simulate), sometimes the bound itself.
  const std::int64_t small_hi = std::min<std::int64_t>(hi, lo < 0 ? 1000 : lo + 40);
  const std::int64_t small_lo = std::max<std::int64_t>(lo, -1000);
  for (int k = 0; k < 8; ++k) {
    const std::int64_t x =
        small_lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(small_hi - small_lo + 1));
    v.accepted.push_back(integer_text(x) + (list && k % 2 ? "," + integer_text(std::min(hi, x + 1)) : ""));
  }
  v.accepted.push_back(integer_text(lo));
  v.accepted.push_back(integer_text(hi));
  v.refused = {"010",
               "0x10",
               "",
               "1e6",
               "+5",
               " 5",
               "5 ",
               "abc",
               "18446744073709551616",
               "9223372036854775808",
               "-9223372036854775809"};
  if (!list) v.refused.push_back("50,000");
  if (lo > std::numeric_limits<std::int64_t>::min()) v.refused.push_back(integer_text(lo - 1));
  if (hi < std::numeric_limits<std::int64_t>::max()) v.refused.push_back(integer_text(hi + 1));
  if (list) v.refused.insert(v.refused.end(), {",", ",,", "1,,2", "1,"});
  return v;
}

// The choices of a CLI11 IsMember type name, "TEXT:{a,b}" (empty when it has none).
std::vector<std::string> choices_of(const std::string& type_name) {
  std::vector<std::string> out;
  const auto open = type_name.find('{');
  const auto close = type_name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return out;
  std::stringstream in(type_name.substr(open + 1, close - open - 1));
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

Values option_values(const accel::cli::CommandLineOption& o, const Scratch& s, Rng& rng) {
  const std::string& n = o.name;
  for (const auto& flag : accel::cli::integer_flags()) {
    if (n == flag.name) return integer_values(flag, n == "--overflow-steps", rng);
  }
  if (n == "--html" || n == "--junit" || n == "--out")
    return {{s.out}, {"", "/dev/full", s.dir + "/no-such-dir/out", s.dir}};
  if (n == "--config") return {{s.config}, {"", s.fifo, s.loop_dir, "/dev/zero", s.dir + "/missing.json"}};
  if (n == "--config-file") return {{s.yaml}, {"", s.fifo, s.dir + "/missing.yaml"}};
  if (n == "--golden") return {{s.golden}, {"", s.loop_dir, s.fifo_dir, s.config}};
  if (n == "--require") {
    return {{"no-duplicates", "no-drops", "lockstep", "len-consistent", "full-coverage", "lockstep,no-drops",
             "no-duplicates,full-coverage"},
            {"", ",", ",,", "bogus", "lockstep,,no-drops", "lockstep,"}};
  }
  if (n == "--seed" || n == "--set-seed" || n == "--generator-seed") {
    return {{"0", "42", "-1", "18446744073709551615"}, {"010", "", "0x10", "18446744073709551616", "1e3", "+1"}};
  }
  if (n == "--resume-at") return {{"0:1", "0:0", "1:3"}, {"", "1", "0:010", "a:b", ":", "0:0x1", "0:-1", "0:1:2"}};
  if (n == "--lr" || n == "--gamma") return {{"0.5", "1", "2"}, {"abc", "", "0", "-1"}};
  if (n == "--overflow-prob") return {{"0.5", "0", "1"}, {"abc", "", "1.5", "-0.1"}};
  if (n == "--timeout-s") return {{"5", "30"}, {"abc", "", "0"}};
  const auto choices = choices_of(o.type_name);
  if (!choices.empty()) return {choices, {"", "bogus"}};
  // Free text no rule constrains here (--resume-with, --join-even-batches, ...): any value may be refused later,
  // so none is counted as one that must be.
  return {{"", "skip_first_batches", "stateful", "true", "x"}, {}};
}

struct Case {
  std::vector<std::string> args;
  bool refused = false;
  int max_valid_exit = 2;
};

// Half the cases are valid throughout; the other half carry exactly one value the rules refuse, so that the
// valid half reaches the simulation and the refused half tests one rule at a time.
Case make_case(const std::vector<accel::cli::CommandLineOption>& options, const std::vector<std::string>& commands,
               const Scratch& s, Rng& rng) {
  Case c;
  const std::string command = pick(rng, commands);
  if (!command.empty()) c.args.push_back(command);
  std::vector<const accel::cli::CommandLineOption*> mine;
  for (const auto& o : options) {
    // --reference runs the real Accelerate (minutes); --help and --version only print.
    const bool skipped =
        o.name == "--reference" || o.name == "--help" || o.name == "--help-all" || o.name == "--version";
    if (o.command == command && !skipped) mine.push_back(&o);
  }
  // A valid dataset length most of the time, so that cases get past "--dataset-len is required".
  if ((command.empty() || command == "check" || command == "trace" || command == "launch" || command == "run") &&
      rng() % 4 != 0) {
    c.args.insert(c.args.end(), {"--dataset-len", std::to_string(rng() % 200)});
  }
  bool require_given = false;
  if (command == "check" && rng() % 4 != 0) {
    c.args.insert(c.args.end(), {"--require", pick(rng, std::vector<std::string>{"no-duplicates", "lockstep,no-drops",
                                                                                 "full-coverage,len-consistent"})});
    require_given = true;
  }
  if (command == "launch") c.args.insert(c.args.end(), {"--nproc", std::to_string(1 + rng() % 4)});
  if (command == "diff") {
    // Its two positionals: traces, or a FIFO / a self-link that must be refused.
    const bool bad = rng() % 4 == 0;
    c.args.insert(c.args.end(),
                  {s.config, bad ? pick(rng, std::vector<std::string>{s.fifo, s.loop_dir, ""}) : s.config});
    c.refused = bad;
    return c;
  }
  if (mine.empty()) return c;
  std::shuffle(mine.begin(), mine.end(), rng);
  const int n = 1 + static_cast<int>(rng() % std::min<std::size_t>(8, mine.size()));
  const int refused_at = rng() % 2 ? static_cast<int>(rng() % static_cast<std::uint64_t>(n)) : -1;
  for (int i = 0; i < n; ++i) {
    // Each option once: CLI11 refuses a repeated one, which would say nothing of the rules.
    const auto& o = *mine[static_cast<std::size_t>(i)];
    if (o.name == "--dataset-len" || (command == "launch" && o.name == "--nproc") ||
        (require_given && o.name == "--require")) {
      continue;
    }
    c.args.push_back(o.name);
    if (!o.takes_value) continue;
    const Values v = option_values(o, s, rng);
    if (i == refused_at && !v.refused.empty()) {
      c.args.push_back(pick(rng, v.refused));
      c.refused = true;
    } else {
      c.args.push_back(pick(rng, v.accepted));
    }
  }
  return c;
}

std::string shell_quoted(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    const bool plain =
        !a.empty() && a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,@%+-") ==
                          std::string::npos;
    out += (out.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return out;
}

struct Outcome {
  std::string
      kind;  // exit-0, exit-1, exit-2, exit-3..5, out-of-memory (bounded), signal, timeout, internal, accepted-refused
  bool finding = false;
  std::string detail;
};

Outcome run_case(const std::string& bin, const Case& c, const Scratch& s, int timeout_s, long memory_cap_mb,
                 bool sanitized) {
  std::vector<std::string> args = {bin};
  args.insert(args.end(), c.args.begin(), c.args.end());
  std::vector<char*> raw;
  for (auto& a : args) raw.push_back(a.data());
  raw.push_back(nullptr);
  const std::string err_path = s.dir + "/stderr.txt";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int out = ::open("/dev/null", O_WRONLY);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int in = ::open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0) _exit(98);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::dup2(in, 0);
    if (sanitized) {
      // ASan reserves terabytes of shadow address space, so RLIMIT_AS cannot cap it: its own limit does.
      std::string options = std::getenv("ASAN_OPTIONS") ? std::getenv("ASAN_OPTIONS") : "";
      options += ":malloc_limit_mb=" + std::to_string(memory_cap_mb) + ":allocator_may_return_null=1";
      ::setenv("ASAN_OPTIONS", options.c_str(), 1);
    } else {
      const rlim_t cap = static_cast<rlim_t>(memory_cap_mb) << 20;
      const rlimit limit{cap, cap};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    ::execv(bin.c_str(), raw.data());
    _exit(97);
  }
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  bool timed_out = false;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      timed_out = true;
      break;
    }
    ::usleep(2000);
  }
  std::ifstream err_in(err_path);
  std::stringstream err;
  err << err_in.rdbuf();
  const std::string message = err.str().substr(0, 300);
  if (timed_out) return {"timeout", true, "over " + std::to_string(timeout_s) + " s"};
  if (WIFSIGNALED(status))
    return {"signal", true, "killed by signal " + std::to_string(WTERMSIG(status)) + ": " + message};
  const int code = WEXITSTATUS(status);
  if (message.find("out of memory") != std::string::npos)
    return {"out-of-memory (bounded, exit 2)", code != 2, message};
  if (code == 70) return {"internal", true, message};
  const bool real_ranks = !c.args.empty() && (c.args[0] == "run" || c.args[0] == "launch");
  if (code > c.max_valid_exit && !(real_ranks && code <= 5)) return {"exit-" + std::to_string(code), true, message};
  if (c.refused && code != 2)
    return {"accepted-refused", true, "exit " + std::to_string(code) + " for a value the rules refuse"};
  return {"exit-" + std::to_string(code), false, ""};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fuzz_cli ACCEL_SIM CASES [--seed S] [--memory-cap-mb M] [--timeout-s T] [--corpus DIR]\n";
    return 2;
  }
  const std::string source = argv[1];
  std::string surface = "flags";
  const long long cases = std::atoll(argv[2]);
  std::uint64_t seed = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  long memory_cap_mb = 2048;
  int timeout_s = 30;
  std::string corpus = "golden/cases";
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--seed")
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--memory-cap-mb")
      memory_cap_mb = std::atol(argv[i + 1]);
    else if (flag == "--timeout-s")
      timeout_s = std::atoi(argv[i + 1]);
    else if (flag == "--corpus")
      corpus = argv[i + 1];
    else if (flag == "--surface")
      surface = argv[i + 1];
  }
  const bool sanitized = std::getenv("ACCEL_SIM_SANITIZED") != nullptr;
  const bool verbose = std::getenv("FUZZ_CLI_VERBOSE") != nullptr;  // prints why valid cases exit 2
  const Scratch s = make_scratch(corpus);
  // A copy of accel-sim in a folder without accel-sim-rank: run and launch stop at "accel-sim-rank is
  // missing" (exit 2) after checking their flags, instead of starting real ranks.
  const std::string bin = s.dir + "/accel-sim";
  fs::copy_file(source, bin);
  fs::permissions(bin, fs::perms::owner_all);
  const auto options = accel::cli::command_line_options();
  std::vector<std::string> commands;
  for (const auto& o : options) {
    if (std::find(commands.begin(), commands.end(), o.command) == commands.end()) commands.push_back(o.command);
  }
  std::vector<std::string> surfaces = {surface};
  if (surface == "all") {
    surfaces = {"flags"};
    surfaces.insert(surfaces.end(), fuzz::surface_names().begin(), fuzz::surface_names().end());
  } else if (surface != "flags" && std::find(fuzz::surface_names().begin(), fuzz::surface_names().end(), surface) ==
                                       fuzz::surface_names().end()) {
    std::cerr << "fuzz_cli: --surface must be flags, all or one of:";
    for (const auto& n : fuzz::surface_names()) std::cerr << " " << n;
    std::cerr << "\n";
    return 2;
  }
  std::cout << "fuzz_cli: surface " << surface << ", seed " << seed << ", " << options.size() << " options of "
            << commands.size() << " commands, " << cases << " cases, memory cap " << memory_cap_mb << " MiB, timeout "
            << timeout_s << " s (replay: --seed " << seed << ")" << std::endl;
  Rng rng(seed);
  std::map<std::string, std::map<std::string, long long>> counts;  // surface -> outcome -> cases
  long long refused_cases = 0;
  int status = 0;
  const auto start = std::chrono::steady_clock::now();
  for (long long i = 0; i < cases; ++i) {
    const std::string& this_surface = surfaces[static_cast<std::size_t>(i) % surfaces.size()];
    Case c;
    if (this_surface == "flags") {
      c = make_case(options, commands, s, rng);
    } else {
      fuzz::SurfaceCase sc = fuzz::make_surface_case(this_surface, s.dir, rng);
      c = Case{std::move(sc.args), sc.refused, sc.max_valid_exit};
    }
    refused_cases += c.refused;
    const Outcome o = run_case(bin, c, s, timeout_s, memory_cap_mb, sanitized);
    ++counts[this_surface][o.kind];
    if (c.refused) ++counts[this_surface]["(held a refused value)"];
    if (verbose && o.kind == "exit-2" && !c.refused) {
      std::ifstream err_in(s.dir + "/stderr.txt");
      std::string line;
      std::getline(err_in, line);
      std::cout << "valid, exit 2: accel-sim " << shell_quoted(c.args) << "\n  " << line << "\n";
    }
    if (o.finding) {
      std::cout << "FINDING at case " << i << " (" << o.kind << "): accel-sim " << shell_quoted(c.args) << "\n  "
                << o.detail << std::endl;
      status = 1;
      break;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& [name, by_kind] : counts) {
    std::cout << "fuzz_cli: outcomes [" << name << "]:";
    for (const auto& [kind, n] : by_kind) std::cout << " " << kind << " " << n << ";";
    std::cout << std::endl;
  }
  std::cout << "fuzz_cli: " << refused_cases << " cases held a value the rules refuse; " << secs << " s" << std::endl;
  std::error_code ec;
  fs::remove_all(s.dir, ec);
  if (status == 0) std::cout << "fuzz_cli: no findings" << std::endl;
  return status;
}
