// Issue 18: a seeded mutational fuzzer for the config/trace JSON readers, the simulator they feed, the
// trace writer and diff, and (optionally) the accel-sim command line. libFuzzer is not used: Debian's
// clang ships it, but the project builds with GCC, and a plain harness runs under ctest and the sanitizer
// build alike.
//
//   fuzz_inputs CORPUS_DIR EXECUTIONS [--seed S] [--cli ACCEL_SIM] [--cli-every K] [--save DIR]
//
// Each execution takes a corpus file (golden/cases), applies 1-4 mutations (byte edits, splices, and JSON
// edits that swap in boundary values: 2^63, 2^64-1, -1, 1e400, null, deep nesting, duplicate keys), and
// runs it. Allowed outcomes are a result or a ConfigError/AccelerateError (what the CLI turns into exit 2);
// any other exception is a finding: the input is saved and the run fails. With --cli every K-th input also
// runs through `accel-sim trace --config` and `check --golden`, which must exit 0, 1 or 2 within 30 s.
// Crashes and sanitizer reports end the process, which the caller sees as a failure.
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "sim/resume_simulator.hpp"
#include "sim/simulator.hpp"
#include "sim/trainer_eval_simulator.hpp"
#include "sim/trainer_simulator.hpp"
#include "trace/resume_json.hpp"
#include "trace/trace_diff.hpp"
#include "trace/trace_json.hpp"
#include "trace/trainer_eval_json.hpp"
#include "trace/trainer_json.hpp"

namespace {

using accel::trace::Json;
using Rng = std::mt19937_64;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> load_corpus(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) names.push_back(n);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());  // the seed alone decides the run
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back(read_all(dir + "/" + n));
  return out;
}

const char* const kValues[] = {"0",
                               "-1",
                               "1",
                               "2",
                               "3",
                               "7",
                               "64",
                               "65536",
                               "65537",
                               "1099511627776",
                               "1099511627777",
                               "9223372036854775807",
                               "9223372036854775808",
                               "-9223372036854775808",
                               "18446744073709551615",
                               "18446744073709551616",
                               "1e400",
                               "-1e400",
                               "1e12",
                               "0.5",
                               "null",
                               "true",
                               "false",
                               "\"\"",
                               "\"iterable\"",
                               "\"map\"",
                               "\"accelerator\"",
                               "\"skipped\"",
                               "\"prepared\"",
                               "[]",
                               "{}",
                               "[1,2]",
                               "[[0,1],[2]]",
                               "\"1.13\"",
                               "\"Accelerator.prepare+AcceleratedScheduler\"",
                               "\"AcceleratedScheduler.step(direct)\"",
                               "\"SeedableRandomSampler\"",
                               "\"BatchSamplerShard\"",
                               "{\"kind\":\"step\"}",
                               "\"hf-iterable\"",
                               "\"hf-map\"",
                               "[5,3,0]",
                               "{\"seed\":7,\"buffer_size\":4}",
                               "\"4.8\""};
const char* const kKeys[] = {"api",
                             "dataset_kind",
                             "dataset_len",
                             "batch_size",
                             "num_processes",
                             "epochs",
                             "skip_first_batches",
                             "schedule",
                             "set_epoch",
                             "shuffle",
                             "num_samples",
                             "replacement",
                             "dispatch_batches",
                             "split_batches",
                             "even_batches",
                             "drop_last",
                             "scheduler",
                             "accelerator",
                             "case",
                             "config",
                             "family",
                             "n",
                             "batch_sampler",
                             "rng_types",
                             "micro_steps_per_epoch",
                             "gradient_accumulation_steps",
                             "data_seed",
                             "set_seed",
                             "shard_sizes",
                             "hf_shuffle",
                             "split_by_node",
                             "datasets_version",
                             "num_workers"};

template <class T, std::size_t N>
const T& pick(Rng& rng, const T (&list)[N]) { return list[rng() % N]; }

// Positions of JSON scalars (numbers, literals, strings) in the text: where a value edit lands.
std::vector<std::pair<std::size_t, std::size_t>> scalar_spans(const std::string& s) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '"') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, s.size());
      // A key (followed by ':') is not a value.
      std::size_t k = j;
      while (k < s.size() && s[k] == ' ') ++k;
      if (k >= s.size() || s[k] != ':') out.push_back({i, j});
      i = j;
    } else if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
      std::size_t j = i;
      while (j < s.size() && std::strchr(",]} \n", s[j]) == nullptr) ++j;
      out.push_back({i, j});
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

void mutate_once(std::string& s, const std::vector<std::string>& corpus, Rng& rng) {
  if (s.empty()) s = "{}";
  const std::size_t at = rng() % s.size();
  switch (rng() % 10) {
    case 0:  // a byte flipped
      s[at] = static_cast<char>(s[at] ^ (1u << (rng() % 8)));
      break;
    case 1:  // a span deleted
      s.erase(at, 1 + rng() % 16);
      break;
    case 2: {  // a span of another corpus file spliced in
      const std::string& other = corpus[rng() % corpus.size()];
      const std::size_t from = rng() % other.size();
      s.insert(at, other.substr(from, 1 + rng() % 64));
      break;
    }
    case 3:
    case 4:
    case 5: {  // a scalar value replaced by a boundary value
      const auto spans = scalar_spans(s);
      if (spans.empty()) break;
      const auto [b, e] = spans[rng() % spans.size()];
      s.replace(b, e - b, pick(rng, kValues));
      break;
    }
    case 6: {  // a key added to the config object (maybe a duplicate)
      const std::size_t c = s.find("\"config\": {");
      if (c == std::string::npos) break;
      s.insert(c + 11, std::string("\"") + pick(rng, kKeys) + "\": " + pick(rng, kValues) + ", ");
      break;
    }
    case 7: {  // a value nested deeply
      const auto spans = scalar_spans(s);
      if (spans.empty()) break;
      const auto [b, e] = spans[rng() % spans.size()];
      const std::size_t depth = 1 + rng() % 200;
      s.insert(e, std::string(depth, ']'));
      s.insert(b, std::string(depth, '['));
      break;
    }
    case 8: {  // a key renamed to another known key
      const std::size_t q = s.find("\": ", at);
      if (q == std::string::npos) break;
      const std::size_t open = s.rfind('"', q - 1);
      if (open == std::string::npos) break;
      s.replace(open + 1, q - open - 1, pick(rng, kKeys));
      break;
    }
    default:  // a byte inserted
      s.insert(at, 1, "{}[],:\"0-e.\\ "[rng() % 14]);
      break;
  }
}

// Work the simulator would do for a config, roughly in samples; the fuzzer skips what would take seconds
// (the input limits allow runs of minutes, which are not what fuzzing is for).
bool small_enough(const accel::trace::CaseConfig& c) {
  constexpr std::int64_t kBudget = 200000;
  if (const auto* m = std::get_if<accel::trace::MetricsCase>(&c)) return small_enough(accel::trace::CaseConfig(m->loader));
  if (const auto* l = std::get_if<accel::trace::LoaderCase>(&c)) {
    const std::int64_t n = std::max(l->loader.dataset_len, l->loader.num_samples.value_or(0));
    return l->prepare.num_processes <= 64 && l->epochs <= 64 && n <= kBudget / std::max<std::int64_t>(1, l->epochs) &&
           l->loader.batch_size <= kBudget;
  }
  if (const auto* b = std::get_if<accel::trace::BatchSamplerShardCase>(&c)) {
    return b->num_processes <= 64 && b->epochs <= 64;
  }
  if (const auto* r = std::get_if<accel::trace::RandpermCase>(&c)) return r->n * r->epochs <= kBudget && r->epochs <= 64;
  const auto& s = std::get<accel::trace::SchedulerCase>(c);
  const std::int64_t per_epoch = s.dataset_len ? *s.dataset_len : s.micro_steps_per_epoch;
  return s.num_processes <= 64 && s.epochs <= 64 && per_epoch <= kBudget / std::max<std::int64_t>(1, s.epochs) &&
         s.batch_size <= kBudget && s.sync_pattern.size() <= 100000;
}

// The two-job families (resume, Trainer, Trainer evaluation) are simulated only when every count the mutation may
// have inflated is small (the Trainer's loop is still replayed step by step: issue 48).
bool small_two_job(const Json& j) {
  if (j.is_array()) {
    if (j.size() > 10000) return false;
    return std::all_of(j.begin(), j.end(), [](const Json& v) { return small_two_job(v); });
  }
  if (!j.is_object()) return true;
  for (const auto& [key, value] : j.items()) {
    const bool seed = key == "seed" || key == "data_seed" || key == "set_seed" || key == "generator_seed";
    if (value.is_number_integer() && !seed) {
      if (value.is_number_unsigned() && value.get<std::uint64_t>() > 10000) return false;
      if (!value.is_number_unsigned() && value.get<std::int64_t>() > 10000) return false;
      if (key.find("num_processes") != std::string::npos && value.get<std::int64_t>() > 16) return false;
    }
    if (!small_two_job(value)) return false;
  }
  return true;
}

// One input through the library: parse, validate, simulate, write, diff. False on a finding; `cheap` says
// whether the CLI may run it too (it simulates whatever the limits allow, however long that takes).
bool run_library(const std::string& text, std::string& why, bool& cheap) {
  cheap = true;
  try {
    const Json file = accel::trace::parse_text(text, "fuzz");
    const std::string out = accel::trace::dump(file);
    if (!file.is_object() || !file.contains("config")) return true;
    const Json& config = file["config"];
    // The families with a parser of their own (every golden set is a corpus: golden/cases-trainer, -trainer-eval,
    // -releases, ...), as the CLI's trace dispatches them.
    if (accel::trace::is_trainer_eval_config(config)) {
      const auto c = accel::trace::parse_trainer_eval_config(config);
      if ((cheap = small_two_job(config))) (void)accel::trace::dump(accel::trace::trainer_eval_to_json("fuzz", config, accel::sim::simulate_trainer_eval(c)));
      return true;
    }
    if (accel::trace::is_trainer_config(config)) {
      const auto c = accel::trace::parse_trainer_config(config);
      if ((cheap = small_two_job(config))) (void)accel::trace::dump(accel::trace::trainer_to_json("fuzz", config, accel::sim::simulate_trainer(c)));
      return true;
    }
    if (accel::trace::is_resume_config(config)) {
      const auto c = accel::trace::parse_resume_config(config);
      if ((cheap = small_two_job(config))) (void)accel::trace::dump(accel::trace::resume_to_json("fuzz", config, accel::sim::simulate_resume(c)));
      return true;
    }
    const auto parsed = accel::trace::parse_config(file["config"]);
    (void)accel::trace::family_of(file["config"]);
    if (!small_enough(parsed)) {
      cheap = false;
      return true;
    }
    const auto trace = accel::sim::simulate_case(parsed);
    const Json actual = accel::trace::to_json("fuzz", file["config"], trace);
    if (const auto d = accel::trace::first_divergence(file, actual)) (void)accel::trace::describe(*d);
    (void)accel::trace::dump(actual);
  } catch (const accel::trace::ConfigError&) {
  } catch (const accel::AccelerateError&) {
  } catch (const std::exception& e) {
    why = std::string("unexpected exception: ") + e.what();
    return false;
  }
  return true;
}

const char* const kFlags[] = {"--ranks",
                              "--dataset-len",
                              "--batch-size",
                              "--split-batches",
                              "--even-batches",
                              "--no-even-batches",
                              "--drop-last",
                              "--shuffle",
                              "--use-seedable-sampler",
                              "--seed",
                              "--set-seed",
                              "--skip-batches",
                              "--epochs",
                              "--torch-version",
                              "--dataset",
                              "--dispatch-batches",
                              "--no-dispatch-batches",
                              "--rng-types",
                              "--api",
                              "--json",
                              "--grad-accum",
                              "--warmup",
                              "--total-steps",
                              "--lr",
                              "--scheduler",
                              "--overflow-steps",
                              "--overflow-prob",
                              "trace",
                              "check",
                              "--require",
                              "diff",
                              "--shard-sizes",
                              "--num-shards",
                              "--hf-shuffle",
                              "--buffer-size",
                              "--split-by-node",
                              "--num-workers",
                              "--datasets-version"};
// Argument values: small ones that run fast, and the boundaries the input limits refuse.
const char* const kArgValues[] = {"0",
                                  "-1",
                                  "1",
                                  "2",
                                  "3",
                                  "8",
                                  "100",
                                  "1000",
                                  "65537",
                                  "1099511627777",
                                  "9223372036854775807",
                                  "9223372036854775808",
                                  "18446744073709551616",
                                  "1e400",
                                  "nan",
                                  "",
                                  "abc",
                                  "iterable",
                                  "map",
                                  "1.13",
                                  "step",
                                  "no-duplicates",
                                  "0.5",
                                  "hf-iterable",
                                  "hf-map",
                                  "5,3,0",
                                  "3,x",
                                  "4.8"};

// A command line of 1-8 random flags and values, under the same limits as a file.
std::vector<std::string> random_argv(Rng& rng) {
  std::vector<std::string> args;
  const int n = 1 + static_cast<int>(rng() % 8);
  for (int i = 0; i < n; ++i) {
    args.push_back(pick(rng, kFlags));
    if (rng() % 3 != 0) args.push_back(pick(rng, kArgValues));
  }
  return args;
}

// accel-sim itself; exit 0, 1 or 2 (check --golden also 3) within the time limit, no signal, no internal error (70). Variant 0 and 1
// run the input file (trace --config, check --golden), variant 2 the command line `argv`.
bool run_cli(const std::string& bin, const std::string& dir, const std::string& text, const std::vector<std::string>& argv,
             bool file_too, std::string& why) {
  const std::string path = dir + "/input.json";
  if (file_too) std::ofstream(path, std::ios::binary) << text;
  for (int variant = file_too ? 0 : 2; variant < 3; ++variant) {
    std::vector<std::string> args = {bin};
    if (variant == 0) args.insert(args.end(), {"trace", "--config", path});
    else if (variant == 1) args.insert(args.end(), {"check", "--golden", dir});
    else args.insert(args.end(), argv.begin(), argv.end());
    std::vector<char*> raw;
    for (auto& a : args) raw.push_back(a.data());
    raw.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (std::freopen("/dev/null", "w", stdout) == nullptr || std::freopen("/dev/null", "w", stderr) == nullptr) _exit(98);
      if (std::freopen("/dev/null", "r", stdin) == nullptr) _exit(98);
      ::alarm(30);  // SIGALRM: reported as a hang below
      ::execv(bin.c_str(), raw.data());
      _exit(97);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::string command;
    for (std::size_t k = 1; k < args.size(); ++k) command += (k > 1 ? " " : "") + args[k];
    if (WIFSIGNALED(status)) {
      why = "accel-sim " + command + ": killed by signal " + std::to_string(WTERMSIG(status)) +
            (WTERMSIG(status) == SIGALRM ? " (over 30 s)" : "");
      return false;
    }
    const int code = WEXITSTATUS(status);
    // `launch` with a small --nproc may start real ranks, which exit 4 without accel-sim-rank here; check --golden
    // exits 3 for a recording it lists as NOT SIMULATED (a recorded outcome the core does not model).
    if (code > 2 && !(variant == 2 && code == 4) && !(variant == 1 && code == 3)) {
      why = "accel-sim " + command + ": exited " + std::to_string(code);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fuzz_inputs CORPUS_DIR EXECUTIONS [--seed S] [--cli ACCEL_SIM] [--cli-every K] [--save DIR]\n";
    return 2;
  }
  const std::string corpus_dir = argv[1];
  const long long executions = std::atoll(argv[2]);
  std::uint64_t seed = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::string cli, save = ".";
  long long cli_every = 50;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--cli") cli = argv[i + 1];
    else if (flag == "--cli-every") cli_every = std::max(1LL, std::atoll(argv[i + 1]));
    else if (flag == "--save") save = argv[i + 1];
  }
  // CORPUS_DIR may name several folders, separated by ':' (every golden set).
  std::vector<std::string> corpus;
  for (std::size_t begin = 0; begin <= corpus_dir.size();) {
    const std::size_t end = std::min(corpus_dir.find(':', begin), corpus_dir.size());
    const auto part = load_corpus(corpus_dir.substr(begin, end - begin));
    corpus.insert(corpus.end(), part.begin(), part.end());
    begin = end + 1;
  }
  if (corpus.empty()) {
    std::cerr << "fuzz_inputs: no .json files in " << corpus_dir << "\n";
    return 2;
  }
  char scratch_template[] = "/tmp/fuzz_inputs.XXXXXX";
  const std::string scratch = cli.empty() ? "" : ::mkdtemp(scratch_template);
  std::cout << "fuzz_inputs: seed " << seed << ", " << corpus.size() << " corpus files, " << executions
            << " executions (replay: --seed " << seed << ")" << std::endl;
  Rng rng(seed);
  const auto start = std::chrono::steady_clock::now();
  long long cli_runs = 0;
  for (long long i = 0; i < executions; ++i) {
    std::string input = corpus[rng() % corpus.size()];
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) mutate_once(input, corpus, rng);
    std::string why;
    bool cheap = true;
    bool ok = run_library(input, why, cheap);
    if (ok && !cli.empty() && i % cli_every == 0) {
      ok = run_cli(cli, scratch, input, random_argv(rng), cheap, why);
      ++cli_runs;
    }
    if (!ok) {
      const std::string path = save + "/fuzz-finding-" + std::to_string(seed) + "-" + std::to_string(i) + ".json";
      std::ofstream(path, std::ios::binary) << input;
      std::cout << "FINDING at execution " << i << ": " << why << " (input saved to " << path << ")" << std::endl;
      return 1;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!scratch.empty()) {
    std::remove((scratch + "/input.json").c_str());
    ::rmdir(scratch.c_str());
  }
  std::cout << "fuzz_inputs: " << executions << " executions (" << cli_runs << " through accel-sim) in " << secs
            << " s, no findings" << std::endl;
  return 0;
}
