#include "cli/accelerate_config_file.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include "cli/integer_flag.hpp"
#include "trace/decimal_integer.hpp"
#include "trace/excerpt.hpp"
#include "trace/input_limits.hpp"
#include "trace/nearest_name.hpp"
#include "trace/trace_json.hpp"

namespace accel::cli {
namespace {

using trace::ConfigError;

[[noreturn]] void refuse(const std::string& field, const std::string& rule) {
  throw ConfigError("config_file." + field + ": " + rule);
}

std::string scalar_text(const YAML::Node& node, const std::string& field) {
  if (!node.IsScalar()) refuse(field, "must be a single value, not a list or a mapping");
  return node.Scalar();
}

// A field standing for an integer flag, by that flag's rule (cli/integer_flag.cpp): YAML's own conversion
// would also take "0x10" and "1e3", and PyYAML reads "010" as 8.
std::int64_t integer(const YAML::Node& node, const std::string& field, std::string_view flag) {
  return read_integer_for(flag, scalar_text(node, field), "config_file." + field);
}

// A field no flag stands for, by the same rule.
std::int64_t integer_in(const YAML::Node& node, const std::string& field, std::int64_t min_value,
                        std::int64_t max_value) {
  const auto read = trace::read_decimal_integer(scalar_text(node, field), min_value, max_value);
  if (!read.value) refuse(field, read.problem);
  return *read.value;
}

// Python's str_to_bool, which Accelerate applies to its boolean settings.
std::optional<bool> truth_value(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* t : {"y", "yes", "t", "true", "on", "1"}) if (text == t) return true;
  for (const char* f : {"n", "no", "f", "false", "off", "0"}) if (text == f) return false;
  return std::nullopt;
}

bool boolean(const YAML::Node& node, const std::string& field) {
  const auto v = truth_value(scalar_text(node, field));
  if (!v) refuse(field, "must be true or false, got '" + node.Scalar() + "'");
  return *v;
}

std::string one_of(const std::string& text, const std::vector<std::string>& allowed, const std::string& field,
                   const std::string& where) {
  if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) return text;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw ConfigError(where + field + ": must be one of " + list + ", got '" + text + "'");
}

const std::vector<std::string> kMixedPrecision = {"no", "fp16", "bf16", "fp8"};

// distributed_type values `accelerate config` writes whose data loading this project models: the
// collectives differ (NCCL, Gloo, ...), the sharding does not.
const std::vector<std::string> kDistributedTypes = {"NO",        "MULTI_CPU", "MULTI_GPU",  "MULTI_NPU", "MULTI_MLU",
                                                    "MULTI_SDAA", "MULTI_MUSA", "MULTI_XPU", "MULTI_HPU", "DEEPSPEED",
                                                    "FSDP",      "XLA"};

// Fields `accelerate config` writes that cannot change which samples a rank sees or how often the
// optimizer steps, with the reason shown to the user.
const std::vector<std::pair<std::string, std::string>> kNoEffect = {
    {"compute_environment", "where the job runs"},
    {"debug", "extra collective checks, same data"},
    {"downcast_bf16", "a TPU dtype setting"},
    {"enable_cpu_affinity", "thread placement"},
    {"gpu_ids", "which devices, not which samples"},
    {"main_process_ip", "rendezvous address"},
    {"main_process_port", "rendezvous port"},
    {"main_training_function", "the entry point's name"},
    {"rdzv_backend", "rendezvous mechanism"},
    {"same_network", "rendezvous network"},
    {"tpu_env", "TPU launch setting"},
    {"tpu_use_cluster", "TPU launch setting"},
    {"tpu_use_sudo", "TPU launch setting"},
    {"dynamo_config", "compilation, same data"},
    {"fsdp_config", "model sharding, same data"},
    {"megatron_lm_config", "not modelled"},
    {"mpirun_config", "launcher setting"},
};

// The keys Accelerate's launcher reads into its config dataclass (commands/config/config_args.py, 1.15.0):
// BaseConfig's and ClusterConfig's fields, and the two older keys process_config converts (fp16, dynamo_backend).
// Any other key makes `accelerate launch` raise ValueError ("had unknown keys"), so the job never starts.
// clang-format off
const std::vector<std::string> kClusterConfigKeys = {
    "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "num_processes", "machine_rank",
    "num_machines", "gpu_ids", "main_process_ip", "main_process_port", "rdzv_backend", "same_network",
    "main_training_function", "enable_cpu_affinity", "fp8_config", "deepspeed_config", "fsdp_config",
    "parallelism_config", "megatron_lm_config", "mpirun_config", "downcast_bf16", "tpu_name", "tpu_zone",
    "tpu_use_cluster", "tpu_use_sudo", "command_file", "commands", "tpu_vm", "tpu_env", "dynamo_config", "fp16",
    "dynamo_backend"};
// compute_environment AMAZON_SAGEMAKER: SageMakerConfig's fields instead.
const std::vector<std::string> kSageMakerConfigKeys = {
    "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "ec2_instance_type",
    "iam_role_name", "image_uri", "profile", "region", "num_machines", "gpu_ids", "base_job_name", "pytorch_version",
    "transformers_version", "py_version", "sagemaker_inputs_file", "sagemaker_metrics_file", "additional_args",
    "dynamo_config", "enable_cpu_affinity", "fp16", "dynamo_backend"};
// clang-format on

// Accelerate's own refusal of a key its dataclass lacks, with the nearest key it has.
void refuse_unknown_keys(const YAML::Node& root) {
  bool sagemaker = false;
  if (const YAML::Node env = root["compute_environment"]; env && env.IsScalar())
    sagemaker = env.Scalar() == "AMAZON_SAGEMAKER";
  const auto& known = sagemaker ? kSageMakerConfigKeys : kClusterConfigKeys;
  for (const auto& entry : root) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string("?");
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string nearest = trace::nearest_name(key, known);
    refuse(trace::excerpt(key),
           std::string("is not a key of Accelerate's ") + (sagemaker ? "SageMakerConfig" : "ClusterConfig") +
               (nearest.empty() ? "" : " (did you mean `" + nearest + "`?)") +
               ": accelerate launch refuses the file (ValueError: unknown keys), so the job never starts");
  }
}

// Nesting beyond what a config file has (a few levels): yaml-cpp recurses per level and reports a 100k-deep
// flow sequence only as "bad file".
constexpr int kMaxYamlDepth = 64;
void refuse_deep_nesting(const std::string& text, const std::string& path) {
  int depth = 0;
  std::size_t line = 1;
  char quote = 0;
  for (char c : text) {
    if (c == '\n') {
      ++line;
      quote = 0;  // YAML scalars in flow style do not span lines in a config file; a stray quote must not hide a line
    } else if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxYamlDepth) {
        throw ConfigError("--config-file: " + path + ": nested deeper than " + std::to_string(kMaxYamlDepth) +
                          " levels at line " + std::to_string(line) +
                          " (input limit; an accelerate config is a "
                          "mapping of a few levels)");
      }
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
}

}  // namespace

AccelerateConfigFile read_accelerate_config_file(const std::string& path) {
  if (path == "-") throw ConfigError("--config-file: give the file `accelerate config` wrote, not stdin");
  // The reader every input file goes through: regular files only (a FIFO would block), bounded in size.
  std::string text;
  try {
    text = trace::read_input(path);
  } catch (const ConfigError& e) {
    throw ConfigError(std::string("--config-file: ") + e.what());
  }
  // The file `accelerate config` writes is a few hundred bytes; refusing anything huge keeps a mistaken
  // path (a dataset) from being parsed as YAML.
  constexpr std::size_t kMaxBytes = 1 << 20;
  if (text.size() > kMaxBytes)
    throw ConfigError("--config-file: " + path + " is larger than 1 MiB: not an accelerate config");
  refuse_deep_nesting(text, path);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("--config-file: " + path + " is not valid YAML/JSON: " + e.what());
  }
  if (!root.IsMap()) throw ConfigError("--config-file: " + path + " must hold a mapping of fields (as `accelerate config` writes)");

  refuse_unknown_keys(root);
  AccelerateConfigFile c;
  c.path = path;
  for (const auto& entry : root) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string("?");
    const YAML::Node& value = entry.second;
    if (key == "num_processes") {
      c.num_processes = integer(value, key, "--ranks");
      c.used.push_back("num_processes: " + std::to_string(*c.num_processes) + " (ranks, over all machines)");
    } else if (key == "num_machines") {
      c.num_machines = integer_in(value, key, 1, trace::kMaxRanks);
      c.used.push_back("num_machines: " + std::to_string(*c.num_machines) + " (checked against num_processes)");
    } else if (key == "machine_rank") {
      c.machine_rank = integer_in(value, key, 0, trace::kMaxRanks - 1);
      c.used.push_back("machine_rank: " + std::to_string(*c.machine_rank) + " (checked; every machine's ranks are simulated)");
    } else if (key == "distributed_type") {
      const std::string t = scalar_text(value, key);
      if (t == "MEGATRON_LM") refuse(key, "MEGATRON_LM prepares data loaders its own way, which this project does not model");
      c.distributed_type = one_of(t, kDistributedTypes, key, "config_file.");
      c.used.push_back("distributed_type: " + t + (t == "XLA" ? " (turns device placement off)" : ""));
    } else if (key == "mixed_precision") {
      c.mixed_precision = one_of(scalar_text(value, key), kMixedPrecision, key, "config_file.");
      c.used.push_back("mixed_precision: " + *c.mixed_precision);
    } else if (key == "use_cpu") {
      c.use_cpu = boolean(value, key);
      c.used.push_back(std::string("use_cpu: ") + (*c.use_cpu ? "true (fp16 then has no loss scaler)" : "false"));
    } else if (key == "parallelism_config") {
      // `accelerate config` writes parallelism_config_<dim>_size keys; accelerate launch turns them into the
      // PARALLELISM_CONFIG_* variables an Accelerator's ParallelismConfig() reads.
      if (!value.IsMap()) refuse(key, "must be a mapping");
      std::string sizes;
      for (const auto& pc : value) {
        const std::string sub = pc.first.IsScalar() ? pc.first.Scalar() : std::string("?");
        const std::string prefix = "parallelism_config_";
        const std::string dim =
            sub.rfind(prefix, 0) == 0 && sub.size() > prefix.size() + 5 && sub.compare(sub.size() - 5, 5, "_size") == 0
                ? sub.substr(prefix.size(), sub.size() - prefix.size() - 5)
                : "";
        if (dim == "dp_replicate" || dim == "dp_shard" || dim == "tp" || dim == "cp" || dim == "sp") {
          const std::int64_t n = integer_in(pc.second, key + "." + sub, 1, trace::kMaxRanks);
          if (n > 1) sizes += (sizes.empty() ? "" : ",") + dim + "=" + std::to_string(n);
        } else {
          c.ignored.push_back("parallelism_config." + sub + " (how the model is parallelised, same data)");
        }
      }
      if (!sizes.empty()) {
        c.parallelism = sizes;
        c.used.push_back("parallelism_config: " + sizes + " (the device mesh every loader is prepared with)");
      }
    } else if (key == "deepspeed_config") {
      if (!value.IsMap()) refuse(key, "must be a mapping");
      for (const auto& ds : value) {
        const std::string sub = ds.first.IsScalar() ? ds.first.Scalar() : std::string("?");
        if (sub == "gradient_accumulation_steps") {
          c.gradient_accumulation_steps = integer(ds.second, key + "." + sub, "--grad-accum");
          c.used.push_back("deepspeed_config.gradient_accumulation_steps: " + std::to_string(*c.gradient_accumulation_steps));
        } else {
          c.ignored.push_back("deepspeed_config." + sub + " (model and optimizer sharding, same data)");
        }
      }
    } else {
      const auto it = std::find_if(kNoEffect.begin(), kNoEffect.end(), [&](const auto& p) { return p.first == key; });
      c.ignored.push_back(key + (it != kNoEffect.end() ? " (" + it->second + ")" : " (not an option this project models)"));
    }
  }
  if (c.num_machines && c.num_processes && *c.num_processes % *c.num_machines != 0) {
    refuse("num_processes", "must be a multiple of num_machines (" + std::to_string(*c.num_machines) + "): it counts every "
                            "machine's processes, got " + std::to_string(*c.num_processes));
  }
  if (c.machine_rank && *c.machine_rank >= c.num_machines.value_or(1)) {
    refuse("machine_rank", "must be < num_machines (" + std::to_string(c.num_machines.value_or(1)) + "), got " +
                               std::to_string(*c.machine_rank));
  }
  if (c.distributed_type && *c.distributed_type == "NO" && c.num_processes.value_or(1) != 1) {
    refuse("num_processes", "must be 1 with distributed_type NO (accelerate launch runs one process), got " +
                                std::to_string(*c.num_processes));
  }
  return c;
}

void apply_accelerate_environment(AccelerateConfigFile& c, const std::function<const char*(const char*)>& getenv) {
  if (const char* v = getenv("ACCELERATE_MIXED_PRECISION")) {
    std::string text(v);
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    c.mixed_precision = one_of(text, kMixedPrecision, "ACCELERATE_MIXED_PRECISION", "environment ");
    c.used.push_back("ACCELERATE_MIXED_PRECISION=" + text + " (environment)");
  }
  if (const char* v = getenv("ACCELERATE_GRADIENT_ACCUMULATION_STEPS")) {
    c.gradient_accumulation_steps =
        read_integer_for("--grad-accum", v, "environment ACCELERATE_GRADIENT_ACCUMULATION_STEPS");
    c.used.push_back("ACCELERATE_GRADIENT_ACCUMULATION_STEPS=" + std::string(v) + " (environment)");
  }
  if (const char* v = getenv("ACCELERATE_USE_CPU")) {
    const auto b = truth_value(v);
    if (!b) throw ConfigError(std::string("environment ACCELERATE_USE_CPU: must be a truth value (true/false, 1/0, yes/no), got '") + v + "'");
    c.use_cpu = *b;
    c.used.push_back("ACCELERATE_USE_CPU=" + std::string(v) + " (environment)");
  }
}

}  // namespace accel::cli
