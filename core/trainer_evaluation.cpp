#include "trainer_evaluation.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "gather_for_metrics.hpp"
#include "mutation.hpp"
#include "numpy_mean.hpp"

namespace accel {
namespace {

// What one rank's container holds while the loop runs.
template <typename T>
struct Container {
  bool empty = true;
  std::vector<std::vector<T>> rows;  // tensor path: one row (concatenated) or one per step; object path: per position
  bool scalars = false;              // object path after a single step: a list of 0-d values
};

template <typename T>
void add_step(Container<T>& c, const std::vector<T>& gathered, const EvaluationOptions& o) {
  if (!o.concat_batches) {
    c.rows.push_back(gathered);  // EvalLoopContainer keeps [step arrays...]
  } else if (!o.use_gather_object) {
    if (c.rows.empty()) c.rows.emplace_back();
    c.rows.front().insert(c.rows.front().end(), gathered.begin(), gathered.end());
  } else if (c.empty) {
    // The gathered object is a flat Python list of 0-d (losses) or (1,) (logits) tensors.
    for (const T& v : gathered) c.rows.push_back({v});
    c.scalars = true;
  } else {
    // nested_concat of two lists pairs them element by element (zip: the shorter list decides), each pair
    // concatenated after atleast_1d.
    const std::size_t n = std::min(c.rows.size(), gathered.size());
    c.rows.resize(n);
    for (std::size_t i = 0; i < n; ++i) c.rows[i].push_back(gathered[i]);
    c.scalars = false;
  }
  c.empty = false;
}

template <typename T>
EvalArrays<T> arrays_of(const Container<T>& c, const EvaluationOptions& o) {
  return EvalArrays<T>{!o.concat_batches || o.use_gather_object, c.rows};
}

// Which of the gathered positions gather_for_metrics keeps on a rank: the core's rule, on the positions.
std::int64_t kept(const std::vector<std::int64_t>& sizes, const EvaluationStep& at, bool use_gather_object) {
  std::vector<Batch> positions;
  SampleId next = 0;
  for (std::int64_t s : sizes) {
    Batch b(static_cast<std::size_t>(s));
    std::iota(b.begin(), b.end(), next);
    next += s;
    positions.push_back(std::move(b));
  }
  // Loss tensors always agree in size; the object path never compares sizes.
  const GatherOutcome out = gather_for_metrics(positions, at.end_of_dataloader, at.remainder, use_gather_object, false);
  return out.ids ? static_cast<std::int64_t>(out.ids->size()) : next;
}

std::int64_t logits_bytes(const Batch& b) { return static_cast<std::int64_t>(b.size()) * 4; }  // float32 (k, 1)

}  // namespace

const char* const kGlooConnectionReset =
    "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:545] Read error [127.0.0.1]:PORT: Connection "
    "reset by peer. This is typically caused by a remote worker hanging or bugs in the application. Check the logs of "
    "the remote worker before reporting an error. GLHF! \xF0\x9F\x8F\x96\xEF\xB8\x8F";

std::string gloo_abort_message(std::int64_t rank, std::int64_t received_bytes, std::int64_t expected_bytes) {
  return "rank " + std::to_string(rank) +
         " exited without a result (killed by SIGABRT): terminate called after throwing an instance of "
         "'gloo::EnforceNotMet'; what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
         "pair.cc:464] op.preamble.length <= op.nbytes. " +
         std::to_string(received_bytes) + " vs " + std::to_string(expected_bytes) +
         ". Received data size doesn't match expected size. Is there a distributed collective mismatch in your code?";
}

bool seeds_eval_length_grouped_sampler(TransformersRelease release) { return release != TransformersRelease::v4_57; }

float batch_loss(const Batch& batch) {
  double sum = 0;
  for (SampleId id : batch) sum += static_cast<double>(id);
  return static_cast<float>(sum) / static_cast<float>(batch.size());
}

std::vector<RankEvaluation> evaluation_loop(const std::vector<std::vector<EvaluationStep>>& steps,
                                            const EvaluationOptions& options) {
  if (options.use_gather_object && !options.concat_batches) {
    throw std::invalid_argument("eval_use_gather_object without eval_do_concat_batches is not modelled");
  }
  if (options.eval_batch_size < 1) throw std::invalid_argument("eval_batch_size must be >= 1");
  const std::size_t world = steps.size();
  std::vector<RankEvaluation> out(world);
  std::vector<Container<float>> losses(world);
  std::vector<Container<LossSource>> sources(world);
  std::vector<Container<std::int64_t>> predictions(world);
  std::vector<bool> failed(world, false);
  for (std::size_t step = 0;; ++step) {
    std::vector<std::size_t> here;
    for (std::size_t r = 0; r < world; ++r) {
      if (step < steps[r].size()) here.push_back(r);
    }
    if (here.empty()) break;
    for (std::size_t r : here) {
      if (steps[r][step].batch.empty()) throw std::invalid_argument("an empty batch in an evaluation loop is not modelled");
      out[r].batches.push_back(steps[r][step].batch);
    }
    if (here.size() < world) {
      // The ranks still looping wait in this step's loss gather for ranks that already returned.
      for (std::size_t r : here) {
        out[r].failure = EvaluationFailure{"Hang", ""};
        failed[r] = true;
      }
      break;
    }
    // The loss gather: eval_batch_size copies of every rank's loss, whatever its batch's size.
    std::vector<float> gathered_losses;
    std::vector<LossSource> gathered_sources;
    const std::vector<std::int64_t> loss_sizes(world, options.eval_batch_size);
    for (std::size_t r = 0; r < world; ++r) {
      const auto copies = static_cast<std::size_t>(options.eval_batch_size);
      gathered_losses.insert(gathered_losses.end(), copies, batch_loss(steps[r][step].batch));
      gathered_sources.insert(gathered_sources.end(), copies,
                              LossSource{static_cast<std::int64_t>(r), static_cast<std::int64_t>(step)});
    }
    std::vector<Batch> logits;
    if (options.compute_metrics) {
      for (std::size_t r = 0; r < world; ++r) logits.push_back(steps[r][step].batch);
      const bool equal = std::all_of(logits.begin(), logits.end(),
                                     [&](const Batch& b) { return b.size() == logits.front().size(); });
      if (!equal && !options.use_gather_object) {
        // gloo's all_gather of unequal logits: its ring sends each rank's buffer in two halves to the next rank.
        for (std::size_t r = 0; r < world; ++r) {
          failed[r] = true;
          if (world != 2) {
            out[r].failure = EvaluationFailure{"CollectiveMismatch", unequal_sizes_message(logits) +
                                                                         " (what each rank then raises is recorded "
                                                                         "on two ranks only)"};
            continue;
          }
          const std::size_t left = (r + world - 1) % world;
          const std::int64_t got = logits_bytes(logits[left]) / 2, want = logits_bytes(logits[r]) / 2;
          out[r].failure = got > want ? EvaluationFailure{"Crash", gloo_abort_message(static_cast<std::int64_t>(r), got, want)}
                                      : EvaluationFailure{"RuntimeError", kGlooConnectionReset};
        }
        break;
      }
    }
    for (std::size_t r = 0; r < world; ++r) {
      const EvaluationStep& at = steps[r][step];
      const auto keep = static_cast<std::size_t>(kept(loss_sizes, at, options.use_gather_object));
      std::vector<float> mine(gathered_losses.begin(), gathered_losses.begin() + static_cast<std::ptrdiff_t>(keep));
      add_step(losses[r], mine, options);
      add_step(sources[r], std::vector<LossSource>(gathered_sources.begin(),
                                                   gathered_sources.begin() + static_cast<std::ptrdiff_t>(keep)),
               options);
      if (options.compute_metrics) {
        const GatherOutcome g = gather_for_metrics(logits, at.end_of_dataloader, at.remainder,
                                                   options.use_gather_object, r == 0);
        add_step(predictions[r], *g.ids, options);
      }
    }
  }
  for (std::size_t r = 0; r < world; ++r) {
    if (failed[r] || losses[r].empty) continue;
    if (losses[r].scalars) {
      // np.concatenate over a list of 0-d arrays, after compute_metrics ran.
      out[r].failure = EvaluationFailure{"ValueError", "zero-dimensional arrays cannot be concatenated"};
      continue;
    }
    out[r].losses = arrays_of(losses[r], options);
    out[r].loss_sources = arrays_of(sources[r], options);
    if (options.compute_metrics) out[r].predictions = arrays_of(predictions[r], options);
    std::vector<float> all;
    for (const auto& row : out[r].losses->rows) all.insert(all.end(), row.begin(), row.end());
    out[r].eval_loss = numpy_float32_mean(all);
    if (mutant(Mutation::EvalLossMeanOfSamples) && out[r].predictions) {
      // The mean users expect: over the gathered samples themselves.
      std::vector<float> ids;
      for (const auto& row : out[r].predictions->rows) {
        for (std::int64_t id : row) ids.push_back(static_cast<float>(id));
      }
      out[r].eval_loss = numpy_float32_mean(ids);
    }
  }
  return out;
}

}  // namespace accel
