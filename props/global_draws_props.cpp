// Property 13: draws from the global generator between set_seed and prepare (a model's initialisation;
// core/torch_rng_state.hpp reads them from the state a script saved).
//
// 13a. One process, or the dispatcher, with torch's RandomSampler and no generator of its own: every
//      pass draws four words from the global generator (the DataLoader iterator's _base_seed, then the
//      sampler's fresh seed; torch/utils/data/dataloader.py and sampler.py). So pass p of a script
//      that drew nothing before prepare is pass 0 of one that drew 4p words: two ways of advancing the
//      same generator, reached through different code.
// 13b. A SeedableRandomSampler (seeded from torch.initial_seed(), not from the generator's position), a
//      DataLoader(generator=g), or no shuffle: the draws change nothing.
// 13d. The draw count read back from the seed prepare gave the sampler's generator (core/draws_before_prepare.hpp,
//      diff --recorded's hint) is the count the simulated prepare was given: through prepare_data_loader's own
//      seeding, for any seed and count, and no count below it gives that seed.
// 13c. use_stateful_dataloader: DataLoaderAdapter calls the StatefulDataLoader's state_dict() at prepare,
//      which builds the first pass's iterator (its two-word _base_seed) then; that pass reuses it. The
//      loader's own passes are therefore a plain loader's (the same words, drawn earlier), but a first pass
//      run by skip_first_batches' plain DataLoader is a plain loader's after two words drawn before prepare,
//      and the prepared loader's next pass then draws no _base_seed (recorded: golden/cases-torch2/
//      accel-map-*-stateful-*).
#include <rapidcheck.h>

#include "core/draws_before_prepare.hpp"
#include "core/prepare_data_loader.hpp"
#include "properties.hpp"

namespace accel::props {
namespace {

struct Drawn {
  DataLoaderArgs loader;
  PrepareOptions options;
};

Drawn drawn_loader() {
  Drawn d;
  d.loader.dataset_len = *rc::gen::inRange<std::int64_t>(1, 200);
  d.loader.batch_size = *rc::gen::inRange<std::int64_t>(1, 8);
  d.loader.shuffle = true;
  d.loader.replacement = *rc::gen::weightedElement<bool>({{4, false}, {1, true}});
  if (*rc::gen::weightedElement<bool>({{4, false}, {1, true}})) {
    d.loader.num_samples = *rc::gen::inRange<std::int64_t>(1, 300);
  }
  d.options.process_seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 20);
  d.options.torch_version = *rc::gen::element(TorchVersion::v1_13, TorchVersion::v2_6);
  return d;
}

std::vector<std::int64_t> ids(const SampleOrder& order) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(order.size()));
  for (std::int64_t i = 0; i < order.size(); ++i) v[static_cast<std::size_t>(i)] = order[i];
  return v;
}

}  // namespace

void draws_before_prepare_advance_the_passes_drawn_from_the_global_generator() {
  Drawn d = drawn_loader();
  const bool dispatcher = *rc::gen::arbitrary<bool>();
  if (dispatcher) {
    d.options.num_processes = *rc::gen::inRange<std::int64_t>(2, 9);
    d.options.dispatch_batches = true;
    d.options.put_on_device = true;
  }
  RC_TAG(dispatcher ? "dispatcher" : "one process");
  const std::int64_t pass = *rc::gen::inRange<std::int64_t>(1, 4);
  Drawn later = d;
  later.options.process_generator_draws = 4 * static_cast<std::uint64_t>(pass);
  RC_ASSERT(ids(pass_order(d.loader, d.options, pass)) == ids(pass_order(later.loader, later.options, 0)));
}

void draws_before_prepare_leave_seeded_samplers_alone() {
  Drawn d = drawn_loader();
  d.options.num_processes = *rc::gen::inRange<std::int64_t>(1, 9);
  const int kind = *rc::gen::inRange(0, 3);
  if (kind == 0) {
    d.options.use_seedable_sampler = true;
    if (*rc::gen::arbitrary<bool>()) d.options.data_seed = PythonInt{*rc::gen::inRange<std::int64_t>(0, 1000)};
    d.loader.replacement = false;
    d.loader.num_samples.reset();
  } else if (kind == 1) {
    d.loader.generator_seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 20);
  } else {
    d.loader.shuffle = false;
    d.loader.replacement = false;
    d.loader.num_samples.reset();
  }
  RC_TAG(kind == 0 ? "seedable" : kind == 1 ? "user generator" : "no shuffle");
  Drawn drew = d;
  drew.options.process_generator_draws = *rc::gen::inRange<std::uint64_t>(1, 5000);
  const std::int64_t pass = *rc::gen::inRange<std::int64_t>(0, 3);
  RC_ASSERT(ids(pass_order(d.loader, d.options, pass)) == ids(pass_order(drew.loader, drew.options, pass)));
}

void stateful_loader_draws_its_first_iterator_at_prepare() {
  Drawn d = drawn_loader();  // one process, torch's RandomSampler on the global generator
  const std::int64_t passes = *rc::gen::inRange<std::int64_t>(2, 5);
  const bool skip_first = *rc::gen::arbitrary<bool>();
  RC_TAG(skip_first ? "first pass skipped" : "every pass prepared");
  const auto run = [&](bool stateful, std::uint64_t draws_before) {
    PrepareOptions o = d.options;
    o.use_stateful_dataloader = stateful;
    o.process_generator_draws = draws_before;
    auto loader = std::get<DataLoaderShard>(prepare_data_loader(d.loader, o));
    std::vector<std::vector<std::int64_t>> out;
    for (std::int64_t p = 0; p < passes; ++p) {
      if (p == 0 && skip_first) {
        DataLoaderShard skipped = loader.skip_first_batches(1);
        out.push_back(ids(skipped.iterate().order));
      } else {
        out.push_back(ids(loader.iterate().order));
      }
    }
    return out;
  };
  const auto stateful = run(true, 0);
  const auto plain = run(false, 0);
  if (!skip_first) {
    RC_ASSERT(stateful == plain);
    return;
  }
  RC_ASSERT(stateful[0] == run(false, 2)[0]);
  // The what-if's order of a skipped first pass (pass_order, no loader built) is the simulated loader's.
  PrepareOptions o = d.options;
  o.use_stateful_dataloader = true;
  RC_ASSERT(ids(pass_order(d.loader, o, 0, /*before_any_prepared_pass=*/true)) == stateful[0]);
  for (std::int64_t p = 1; p < passes; ++p)
    RC_ASSERT(stateful[static_cast<std::size_t>(p)] == plain[static_cast<std::size_t>(p)]);
}

void draws_read_back_from_the_sampler_seed_are_the_draws_prepare_made() {
  Drawn d = drawn_loader();
  d.loader.replacement = false;
  d.loader.num_samples.reset();
  d.options.num_processes = *rc::gen::inRange<std::int64_t>(2, 9);
  d.options.process_seed = *rc::gen::arbitrary<std::uint64_t>();
  d.options.process_generator_draws = *rc::gen::inRange<std::uint64_t>(0, 20000);
  d.options.synchronize_generator = true;
  RC_ASSERT(shuffle_generator_rule(d.options.release) == ShuffleGeneratorRule::SeededFromGlobalAtPrepare);
  // The seed as the simulated loader gave it to its sampler: the generator the shard synchronises.
  const auto shard = std::get<DataLoaderShard>(prepare_data_loader(d.loader, d.options));
  const auto seed = shard.synchronized_generator_seed();
  RC_ASSERT(seed.has_value());
  const auto found = draws_before_prepare(d.options.process_seed, *seed, 20001);
  RC_ASSERT(found == std::optional<std::uint64_t>(d.options.process_generator_draws));
  if (d.options.process_generator_draws > 0)
    RC_ASSERT(!draws_before_prepare(d.options.process_seed, *seed, d.options.process_generator_draws - 1));
}

}  // namespace accel::props
