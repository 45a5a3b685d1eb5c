// The help topics: which text each topic shows and where its docs page is.
#include "cli/help_topics.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <ostream>
#include <string_view>
#include <vector>

#include "cli/docs_pages.hpp"
#include "trace/nearest_name.hpp"

namespace accel::cli {
namespace {

enum class Shows { Command, Groups, Text };

struct Topic {
  std::string_view name;
  std::string_view summary;
  Shows shows;
  // Command: the subcommand's name; Groups: option groups of the root command, '|'-separated; Text: the text.
  std::string_view what;
  std::string_view page;  // docs/ page, or empty
};

constexpr std::string_view kRequirements =
    "Requirements of `accel-sim check --require LIST` (and the what-if's --require), judged on every pass:\n"
    "  no-duplicates   no sample is yielded more than once\n"
    "  no-drops        every sample of the dataset is yielded\n"
    "  lockstep        every rank yields the same number of batches (none waits forever in a collective)\n"
    "  len-consistent  len(dataloader) equals the batches each rank yields\n"
    "  full-coverage   every sample exactly once (no-duplicates and no-drops)\n"
    "  exact-resume    the restarted job trains on what the uninterrupted one does (--resume-at, --resume-at-step)\n"
    "  exact-metrics   gather_for_metrics hands the metric every sample exactly once (--eval; with --api trainer:\n"
    "                  every trainer.evaluate() call, --eval-dataset-len)\n"
    "  mesh-groups-agree  every tp / cp group of a device mesh computes on one batch (always judged with a mesh)\n"
    "A failure prints its evidence (ids, ranks, steps) and exits 1.\n";

constexpr std::string_view kFindings =
    "Finding codes (terminal `severity[code]: message`, JSON `findings`), errors first:\n"
    "  rejected-config              error    Accelerate raises for this configuration\n"
    "  iteration-error              error    every rank raises while iterating\n"
    "  uneven-steps-hang            error    ranks yield different numbers of batches: a collective hangs\n"
    "  mesh-group-split             error    ranks of one tp/cp group of the device mesh get different batches\n"
    "  scheduler-error              error    the lr scheduler raises during training\n"
    "  hf-uneven-shards             error    Accelerate's .shard() gives ranks whole shards of unequal size\n"
    "  hf-split-twice               error    a stream split_dataset_by_node split is split again by prepare\n"
    "  resume-error                 error    the resumed Trainer job raises before its first batch (--api trainer)\n"
    "  duplicated-samples           warning  samples are yielded more than once in a pass\n"
    "  dropped-samples              warning  samples are never yielded in a pass\n"
    "  len-mismatch                 warning  len(dataloader) differs from the batches yielded\n"
    "  resume-past-end              note     the Trainer checkpoint is at or past max_steps (--api trainer)\n"
    "  trainer-never-steps          error    an IterableDataset pass shorter than the accumulation: train() never "
    "returns\n"
    "  eval-loss-weighted           warning  Trainer's eval_loss weighs eval samples unequally (--eval-dataset-len)\n"
    "  eval-predictions-wrong       error    compute_metrics does not receive every eval sample once\n"
    "  eval-crash                   error    unequal eval batches abort gloo's all_gather of the logits\n"
    "  eval-hang                    error    a rank with one eval batch more waits forever in its gather\n"
    "  eval-error                   error    trainer.evaluate() raises\n"
    "  mesh-data-replicated         warning  data-parallel groups of the device mesh receive identical batches\n"
    "  mesh-len-mismatch            warning  under tp the dispatcher's len() divides by every rank\n"
    "  mesh-lost-on-skip            error    skip_first_batches drops the mesh: a resumed tp dispatcher splits groups\n"
    "  data-seed-ignored            warning  data_seed has no effect on this sampler\n"
    "  skip-epoch-counter           warning  skip_first_batches' loader does not advance the epoch counter\n"
    "  later-pass-differs           warning  a later pass duplicates, drops or steps differently from pass 0\n"
    "  worker-duplicates            warning  DataLoader workers each read the whole iterable dataset\n"
    "  worker-partial-batches       warning  each DataLoader worker ends with a short batch of its own\n"
    "  scheduler-runs-fast          warning  the scheduler steps more than once per optimizer step\n"
    "  schedule-ends-early          warning  the schedule reaches its end before training does\n"
    "  schedule-far-from-end        warning  training ends far before the schedule does\n"
    "  resume-not-identical         warning  the restarted job trains on other samples than the uninterrupted one\n"
    "  inexact-metrics              warning  gather_for_metrics hands the metric duplicates or misses samples\n"
    "  unseeded-shuffle             note     the shuffle is not seeded (a warning when ranks shuffle differently)\n"
    "  ids-not-drawn                note     a shuffle past 2^25 samples is counted, not drawn: no ids named "
    "(--draw-ids)\n"
    "  ids-follow-global-generator  note     the shuffled ids depend on what drew from torch's generator before "
    "prepare\n"
    "  exact-alternative            note     a simulated option with every sample once and ranks in lock-step\n"
    "  fp16-skipped-steps           note     the fp16 loss scaler skips steps on overflow\n"
    "  warmup-unscaled              note     the warm-up counts scheduler steps, not optimizer steps\n"
    "  onecycle-guard               note     OneCycleLR would raise past its end; steps are guarded\n"
    "Evidence keys per code: accel-sim help findings --page (docs/report-json.md).\n";

constexpr std::string_view kExitCodes =
    "Exit codes:\n"
    "  0   ok: every requirement holds, traces identical, the what-if ran\n"
    "  1   a requirement failed (check), traces differ (diff, compare, run, launch)\n"
    "  2   bad input (a flag, a config file, a trace) or a configuration Accelerate rejects\n"
    "  3   diff --recorded, check --golden: not compared (something accel-sim does not model, named);\n"
    "      run/launch: a rank died at --die-at-step, as asked\n"
    "  4   run/launch: the job failed\n"
    "  5   run/launch: ranks hung in a collective, as the simulator predicted\n"
    "  6   launch --parallelism: the ranks of a tp / cp group received different batches\n"
    "  70  internal error\n";

constexpr std::array kTopics = {
    Topic{"what-if", "the default command: which samples each rank sees, and what to change", Shows::Groups,
          "How it is prepared (Accelerator / prepare_data_loader)|The user's DataLoader|Passes|Output",
          "docs/what-if.md"},
    Topic{"seeds", "set_seed, SeedableRandomSampler, generators and draws before prepare", Shows::Groups, "Seeds",
          "docs/what-if.md"},
    Topic{"training", "the training loop: accumulation, optimizer and scheduler steps", Shows::Groups,
          "Training loop (with --scheduler)", "docs/training.md"},
    Topic{"resume", "is a resume from a checkpoint exact (skip_first_batches, stateful loaders)", Shows::Groups,
          "Resume what-if", "docs/resume.md"},
    Topic{"trainer", "transformers.Trainer (--api trainer): its loader, loop and resume_from_checkpoint", Shows::Groups,
          "transformers.Trainer (with --api trainer)|Resume what-if", "docs/trainer.md"},
    Topic{"eval", "what gather_for_metrics hands the metric", Shows::Groups, "Evaluation (gather_for_metrics)",
          "docs/eval.md"},
    Topic{"check", "the CI gate: exit 1 when a requirement fails", Shows::Command, "check", "docs/what-if.md"},
    Topic{"requirements", "what each `check --require` name judges", Shows::Text, kRequirements, "docs/what-if.md"},
    Topic{"findings", "every finding code, its severity and meaning", Shows::Text, kFindings, "docs/report-json.md"},
    Topic{"exit-codes", "what each exit code means", Shows::Text, kExitCodes, "docs/reference.md"},
    Topic{"trace", "print a config's trace (golden schema JSON)", Shows::Command, "trace", "docs/reference.md"},
    Topic{"diff", "compare two trace files", Shows::Command, "diff", "docs/reference.md"},
    Topic{"upgrade", "what changes per rank between two Accelerate releases (--accelerate-version for one)",
          Shows::Command, "upgrade", "docs/releases.md"},
    Topic{"compare", "record a config with the real Accelerate and diff it with the simulator", Shows::Command,
          "compare", "docs/real-accelerate.md"},
    Topic{"run", "one real rank over Gloo/NCCL (under torchrun or launch)", Shows::Command, "run",
          "docs/real-ranks.md"},
    Topic{"launch", "start N local real ranks and compare with the simulator", Shows::Command, "launch",
          "docs/real-ranks.md"},
    Topic{
        "python", "the Python module: what_if, from_dataloader, trace, testing.assert_loader_matches", Shows::Text,
        "The Python module (accelerate_sim) runs the same analyses in process and returns the --json report as a "
        "dict:\n"
        "accelerate_sim.what_if(...) takes the command line's options by Accelerate's names (accelerate_sim.OPTIONS "
        "lists\n"
        "them, accelerate_sim.flags(...) shows the equivalent flags), accelerate_sim.from_dataloader(dl, ...) reads a "
        "real\n"
        "DataLoader (and torch's global generator), accelerate_sim.trace(...) returns the simulated trace, and\n"
        "accelerate_sim.testing.assert_loader_matches(dl) fails a test when the prepared loader differs (in pytest:\n"
        "the accel_sim fixture). Your own job: accelerate_sim.record(loader, DIR) writes what each rank received, and\n"
        "python -m accelerate_sim.launch -n 2 train.py starts 2 local ranks (docs/recording.md).\n",
        "docs/python.md"},
    Topic{"limits", "what accel-sim refuses and does not model", Shows::Text,
          "What accel-sim does not model it refuses (exit 2, naming what is missing), never approximates:\n"
          "  distributed_type MEGATRON_LM; in from_dataloader, samplers other than Sequential/RandomSampler,\n"
          "  custom batch samplers, DataLoader(in_order=False) with workers; on real ranks, DDP buffer broadcasts.\n"
          "Sizes: --ranks up to 65536, lengths and batch sizes up to 2^40; a size this machine cannot hold is\n"
          "refused as out of memory.\n",
          "docs/limits.md"},
};

const Topic* find_topic(std::string_view name) {
  for (const Topic& t : kTopics) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

void print_groups(const CLI::App& app, std::string_view groups, std::ostream& out) {
  // The root command's own formatter, so the lines are --help's.
  const auto own = std::dynamic_pointer_cast<CLI::Formatter>(app.get_formatter());
  const CLI::Formatter fallback;
  const CLI::Formatter& formatter = own ? *own : fallback;
  std::size_t begin = 0;
  while (begin <= groups.size()) {
    const std::size_t end = std::min(groups.find('|', begin), groups.size());
    const std::string group(groups.substr(begin, end - begin));
    const std::vector<const CLI::Option*> options =
        app.get_options([&](const CLI::Option* o) { return o->get_group() == group; });
    std::string text = formatter.make_group(group, false, options);
    text.erase(0, text.find_first_not_of('\n'));
    out << text << "\n";
    begin = end + 1;
  }
}

}  // namespace

int print_help_topic(const CLI::App& app, const std::optional<std::string>& topic, std::ostream& out, std::ostream& err,
                     bool page) {
  if (page && !topic) {
    err << "accel-sim: help --page: name a topic (accel-sim help lists them)\n";
    return 2;
  }
  if (!topic) {
    out << "Usage: accel-sim help TOPIC\n\nTopics:\n";
    for (const Topic& t : kTopics) {
      out << "  " << t.name << std::string(14 - std::min<std::size_t>(t.name.size(), 13), ' ') << t.summary << "\n";
    }
    out << "\naccel-sim --help lists every option; accel-sim COMMAND --help a command's.\n";
    return 0;
  }
  const Topic* t = find_topic(*topic);
  if (!t) {
    std::vector<std::string> names;
    for (const Topic& k : kTopics) names.emplace_back(k.name);
    const std::string nearest = trace::nearest_name(*topic, names);
    err << "accel-sim: help: unknown topic \"" << *topic << "\""
        << (nearest.empty() ? "" : "; did you mean " + nearest + "?") << " (accel-sim help lists them)\n";
    return 2;
  }
  if (page) {
    const auto pages = docs_pages();
    const auto found = std::find_if(pages.begin(), pages.end(), [&](const DocsPage& p) { return p.path == t->page; });
    if (t->page.empty() || found == pages.end()) {
      err << "accel-sim: help " << t->name << " --page: this build has no page for the topic\n";
      return 2;
    }
    out << found->text;
    return 0;
  }
  out << "accel-sim help " << t->name << ": " << t->summary << "\n\n";
  switch (t->shows) {
    case Shows::Command: {
      const auto subs = app.get_subcommands([&](const CLI::App* s) { return s->get_name() == t->what; });
      if (!subs.empty()) out << subs.front()->help("accel-sim");
      break;
    }
    case Shows::Groups:
      print_groups(app, t->what, out);
      break;
    case Shows::Text:
      out << t->what;
      break;
  }
  // The page is built in: a pip user has no docs/ folder.
  if (!t->page.empty()) out << "More: accel-sim help " << t->name << " --page (" << t->page << ")\n";
  return 0;
}

}  // namespace accel::cli
