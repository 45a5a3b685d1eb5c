#include "recorded_json.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/accelerate_release.hpp"
#include "excerpt.hpp"
#include "input_limits.hpp"

namespace accel::trace {
namespace {

[[noreturn]] void bad(const std::string& file, const std::string& field, const std::string& rule) {
  throw ConfigError(file + ": " + field + ": " + rule);
}

std::int64_t integer_at(const Json& obj, const std::string& key, const std::string& file, const std::string& at,
                        std::optional<std::int64_t> fallback, std::int64_t min_value) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (fallback) return *fallback;
    bad(file, at + key, "is required (an integer >= " + std::to_string(min_value) + ")");
  }
  if (!it->is_number_integer()) bad(file, at + key, "must be an integer, got " + it->dump());
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxCount))
    bad(file, at + key, "must be <= " + std::to_string(kMaxCount) + " (input limit)");
  const auto v = it->get<std::int64_t>();
  if (v < min_value) bad(file, at + key, "must be >= " + std::to_string(min_value) + ", got " + std::to_string(v));
  return v;
}

RecordedPass read_pass(const Json& p, const std::string& file, const std::string& at) {
  if (!p.is_object()) bad(file, at, "must be an object (epoch, segment, start_step, batches, complete)");
  RecordedPass out;
  out.epoch = integer_at(p, "epoch", file, at + ".", std::nullopt, 0);
  out.segment = integer_at(p, "segment", file, at + ".", 0, 0);
  out.start_step = integer_at(p, "start_step", file, at + ".", 0, 0);
  const auto b = p.find("batches");
  if (b == p.end() || !b->is_array()) bad(file, at + ".batches", "must be a list of batches (lists of sample ids)");
  for (std::size_t i = 0; i < b->size(); ++i) {
    const Json& batch = (*b)[i];
    const std::string where = at + ".batches[" + std::to_string(i) + "]";
    if (!batch.is_array()) bad(file, where, "must be a list of sample ids, got " + batch.dump().substr(0, 80));
    Batch ids;
    for (const Json& id : batch) {
      if (!id.is_number_integer() || (!id.is_number_unsigned() && id.get<std::int64_t>() < 0) ||
          (id.is_number_unsigned() && id.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxCount)))
        bad(file, where, "sample ids must be integers in 0.." + std::to_string(kMaxCount) + ", got " + id.dump());
      ids.push_back(id.get<std::int64_t>());
    }
    out.batches.push_back(std::move(ids));
  }
  if (const auto c = p.find("complete"); c != p.end() && !c->is_null()) {
    if (!c->is_boolean()) bad(file, at + ".complete", "must be true or false");
    out.complete = c->get<bool>();
  }
  return out;
}

}  // namespace

RecordedRun read_recorded_run(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(dir, error)) throw ConfigError("--recorded: " + dir + " is not a directory");
  std::map<std::int64_t, fs::path> files;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("rank-", 0) != 0 || it->path().extension() != ".json") continue;
    const std::string digits = name.substr(5, name.size() - 5 - 5);
    if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) continue;
    files[std::stoll(digits)] = it->path();
  }
  if (error) throw ConfigError("--recorded: cannot list " + dir + " (" + error.message() + ")");
  if (files.empty())
    throw ConfigError("--recorded: no rank-<r>.json in " + dir +
                      " (accelerate_sim.record(loader, DIR) writes one per rank)");
  RecordedRun run;
  bool first = true;
  for (const auto& [number, path] : files) {
    const std::string file = path.string();
    const Json doc = parse_text(read_input(file), file);
    if (!doc.is_object()) bad(file, "(top level)", "must be a JSON object (a recorded trace)");
    if (!doc.contains("family") || doc["family"] != "recorded")
      bad(file, "family",
          "must be \"recorded\" (written by accelerate_sim.record), got " +
              (doc.contains("family") ? doc["family"].dump() : std::string("nothing")));
    if (!doc.contains("config") || !doc["config"].is_object()) bad(file, "config", "must be an object");
    const Json& config = doc["config"];
    const std::int64_t world = integer_at(config, "num_processes", file, "config.", std::nullopt, 1);
    const std::string name = doc.contains("case") && doc["case"].is_string() ? doc["case"].get<std::string>() : "";
    if (first) {
      run.name = name;
      run.config = config;
      run.num_processes = world;
      if (const auto n = config.find("dataset_len"); n != config.end() && !n->is_null())
        run.dataset_len = integer_at(config, "dataset_len", file, "config.", std::nullopt, 0);
      run.modelled = config.contains("modelled") && config["modelled"].is_boolean() && config["modelled"].get<bool>();
      if (const auto nm = config.find("not_modelled"); nm != config.end() && nm->is_array()) {
        for (const Json& why : *nm) {
          if (why.is_string()) run.not_modelled.push_back(why.get<std::string>());
        }
      }
      if (doc.contains("reference") && doc["reference"].is_object() && doc["reference"].contains("torch_initial_seed") &&
          doc["reference"]["torch_initial_seed"].is_number_integer())
        run.torch_initial_seed = doc["reference"]["torch_initial_seed"];
      if (doc.contains("reference") && doc["reference"].is_object()) {
        const Json& ref = doc["reference"];
        if (ref.contains("accelerate_version") && ref["accelerate_version"].is_string())
          run.accelerate_version = ref["accelerate_version"].get<std::string>();
        if (ref.contains("torch") && ref["torch"].is_string()) run.torch_version = ref["torch"].get<std::string>();
        if (const auto g = ref.find("sampler_generator_seed"); g != ref.end() && !g->is_null()) {
          // prepare draws it as random_() of an int64: in [0, 2^63).
          if (!g->is_number_integer() || (!g->is_number_unsigned() && g->get<std::int64_t>() < 0) ||
              g->get<std::uint64_t>() >= (std::uint64_t{1} << 63))
            bad(file, "reference.sampler_generator_seed",
                "must be null or an integer in [0, 2^63), got " + excerpt(g->dump()));
          run.sampler_generator_seed = g->get<std::uint64_t>();
        }
      }
      first = false;
    } else if (world != run.num_processes) {
      bad(file, "config.num_processes", std::to_string(world) + " here, " + std::to_string(run.num_processes) +
                                            " in the other ranks' files: not one run");
    } else {
      // One run has one configuration: a field that differs between rank files (a dataset length, a batch size)
      // means files of different runs, and judging or predicting them as one would say nothing true. What the
      // recorder could not read is rank-local (`modelled`, `not_modelled`).
      for (const auto& [key, value] : config.items()) {
        if (key == "modelled" || key == "not_modelled") continue;
        const auto first_value = run.config.find(key);
        if (first_value == run.config.end() || *first_value != value) {
          bad(file, "config." + excerpt(key),
              excerpt(value.dump()) + " here, " +
                  (first_value == run.config.end() ? std::string("absent") : excerpt(first_value->dump())) + " in " +
                  run.ranks.front().file + ": every rank's file of one run has the same config");
        }
      }
      for (const auto& [key, value] : run.config.items()) {
        if (key != "modelled" && key != "not_modelled" && !config.contains(key))
          bad(file, "config." + excerpt(key),
              "absent here, " + excerpt(value.dump()) + " in " + run.ranks.front().file +
                  ": every rank's file of one run has the same config");
      }
    }
    if (!doc.contains("ranks") || !doc["ranks"].is_array() || doc["ranks"].size() != 1)
      bad(file, "ranks", "must hold exactly this rank's record");
    const Json& r = doc["ranks"][0];
    RecordedRank rank;
    rank.file = file;
    rank.rank = integer_at(r, "rank", file, "ranks[0].", std::nullopt, 0);
    if (rank.rank != number) bad(file, "ranks[0].rank", "is " + std::to_string(rank.rank) + " in rank-" + std::to_string(number) + ".json");
    if (r.contains("loader_class") && r["loader_class"].is_string()) rank.loader_class = r["loader_class"].get<std::string>();
    if (r.contains("len") && r["len"].is_number_integer()) rank.len = r["len"].get<std::int64_t>();
    if (!r.contains("epochs") || !r["epochs"].is_array()) bad(file, "ranks[0].epochs", "must be a list of passes");
    for (std::size_t i = 0; i < r["epochs"].size(); ++i) {
      rank.passes.push_back(read_pass(r["epochs"][i], file, "ranks[0].epochs[" + std::to_string(i) + "]"));
    }
    run.ranks.push_back(std::move(rank));
  }
  for (std::int64_t r = 0; r < run.num_processes; ++r) {
    if (!files.count(r))
      throw ConfigError("--recorded: " + dir + " has no rank-" + std::to_string(r) + ".json (num_processes is " +
                        std::to_string(run.num_processes) + "): every rank's file is needed");
  }
  if (static_cast<std::int64_t>(files.size()) != run.num_processes)
    throw ConfigError("--recorded: " + dir + " holds " + std::to_string(files.size()) + " rank files for num_processes " +
                      std::to_string(run.num_processes));
  // A sample id is the dataset's index: one at or past dataset_len was not drawn from this dataset, and every
  // coverage verdict over 0..dataset_len-1 would be judged on ids that are not there.
  if (run.dataset_len) {
    for (const auto& rank : run.ranks) {
      for (std::size_t p = 0; p < rank.passes.size(); ++p) {
        const auto& batches = rank.passes[p].batches;
        for (std::size_t b = 0; b < batches.size(); ++b) {
          for (const std::int64_t id : batches[b]) {
            if (id >= *run.dataset_len) {
              bad(rank.file, "ranks[0].epochs[" + std::to_string(p) + "].batches[" + std::to_string(b) + "]",
                  "sample id " + std::to_string(id) + " is not below config.dataset_len (" +
                      std::to_string(*run.dataset_len) + "): a sample id is the dataset's index, 0.." +
                      std::to_string(*run.dataset_len - 1));
            }
          }
        }
      }
    }
  }
  return run;
}

std::optional<Json> recorded_simulation_config(const RecordedRun& run, std::string* why_not) {
  const auto refuse = [&](const std::string& why) -> std::optional<Json> {
    if (why_not) *why_not = why;
    return std::nullopt;
  };
  if (!run.modelled) {
    std::string reasons;
    for (const auto& r : run.not_modelled) reasons += (reasons.empty() ? "" : "; ") + r;
    return refuse("the recorder found what accel-sim does not model" + (reasons.empty() ? "" : ": " + reasons));
  }
  Json c = run.config;
  c.erase("modelled");
  c.erase("not_modelled");
  // The recording's own releases (issue 45): a job recorded on Accelerate 0.28.0 is predicted by 0.28.0's rules, and
  // on torch 1.13 by its shuffle; a release accel-sim does not model is said, never answered with 1.15.0's rules.
  if ((!c.contains("accelerate_version") || c["accelerate_version"].is_null()) && run.accelerate_version) {
    AccelerateRelease release;
    try {
      release = modelled_release(*run.accelerate_version);
    } catch (const std::invalid_argument& e) {
      return refuse("the recording was made with Accelerate " + *run.accelerate_version + ": " + e.what());
    }
    c["accelerate_version"] = release.name();
    if (c.contains("accelerator") && c["accelerator"].is_object()) drop_keywords_the_release_lacks(c["accelerator"], release);
  }
  if ((!c.contains("torch_version") || c["torch_version"].is_null()) && run.torch_version)
    c["torch_version"] = torch_shuffle_version(*run.torch_version);
  const bool shuffle = c.contains("shuffle") && c["shuffle"].is_boolean() && c["shuffle"].get<bool>();
  // set_seed(s) seeds torch with s: torch.initial_seed() at record time says what the script seeded with (draws made
  // between the seed and prepare, a model's initialisation, are not known to the recorder: --rng-draws models them).
  if ((!c.contains("set_seed") || c["set_seed"].is_null()) && run.torch_initial_seed) c["set_seed"] = *run.torch_initial_seed;
  const bool seeded = (c.contains("set_seed") && !c["set_seed"].is_null()) ||
                      (c.contains("generator_seed") && !c["generator_seed"].is_null()) ||
                      (c.contains("accelerator") && c["accelerator"].is_object() &&
                       c["accelerator"].value("use_seedable_sampler", false) && c["accelerator"].contains("data_seed") &&
                       !c["accelerator"]["data_seed"].is_null());
  if (shuffle && !seeded) {
    return refuse("the recording does not say how torch was seeded before the shuffle (no set_seed, generator or "
                  "data_seed recorded): the order is the run's own, nothing to predict it from");
  }
  // The passes the prepared loader made in the first run (segment 0), in epoch order.
  std::set<std::int64_t> epochs;
  for (const auto& p : run.ranks.front().passes) {
    if (p.segment == 0) epochs.insert(p.epoch);
  }
  const auto count = static_cast<std::int64_t>(epochs.size());
  if (count == 0) return refuse("rank 0 recorded no pass");
  c["epochs"] = count;
  c["schedule"] = Json::array();
  for (std::int64_t i = 0; i < count; ++i) c["schedule"].push_back("prepared");
  c["multiprocess"] = run.num_processes > 1;
  return c;
}

}  // namespace accel::trace
