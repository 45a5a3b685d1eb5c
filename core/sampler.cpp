#include "sampler.hpp"

#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "error.hpp"
#include "mutation.hpp"

namespace accel {

Sampler::Sampler(SamplerOptions options)
    : options_(options), generator_(options.generator_seed.value_or(0)), global_generator_(options.seed) {
  global_generator_.discard(mutant(Mutation::PreparedDrawsIgnored) ? 0 : options_.seed_draws);
  if (options_.kind == SamplerKind::LengthGrouped) {
    // LengthGroupedSampler's constructor checks nothing of the kind; an empty dataset fails at iteration.
    if (!options_.length_grouping || options_.length_grouping->size() != options_.dataset_len) {
      throw std::invalid_argument("Sampler: a LengthGrouped sampler needs one length per sample");
    }
  } else if (options_.kind != SamplerKind::Sequential) {
    const std::int64_t n = size();
    if (n <= 0) {
      throw AccelerateError(PyErrorType::ValueError, "DataLoader",
                            "num_samples should be a positive integer value, but got num_samples=" +
                                std::to_string(n));
    }
  }
}

std::int64_t Sampler::size() const noexcept {
  if (options_.kind == SamplerKind::Sequential || options_.kind == SamplerKind::LengthGrouped) {
    return options_.dataset_len;
  }
  return options_.num_samples.value_or(options_.dataset_len);
}

SampleOrder Sampler::iterate() {
  switch (options_.kind) {
    case SamplerKind::Sequential:
      return SampleOrder::sequential(options_.dataset_len);
    case SamplerKind::Random: {
      if (options_.generator_seed) return draw(generator_);
      TorchGenerator fresh(draw_seed(global_generator_));
      return draw(fresh);
    }
    case SamplerKind::LengthGrouped: {
      // generator=None unless prepare_data_loader gave it one: the randperm comes from the global generator.
      TorchGenerator& gen = options_.generator_seed ? generator_ : global_generator_;
      const LengthGrouping& g = *options_.length_grouping;
      return SampleOrder::of(length_grouped_indices(*g.lengths, g.batch_size, gen, options_.torch_version));
    }
    case SamplerKind::SeedableRandom: {
      const PythonInt seed = pass_seed();
      TorchGenerator gen(torch_seed_or_raise(seed, "iterate", options_.torch_version));
      if (mutant(Mutation::SeedFromEntropy)) gen.manual_seed(std::random_device{}());
      SampleOrder order = draw(gen);
      // 0.25.0 - 0.27.1: the next pass starts from this pass's seed (the generator's initial_seed).
      if (options_.seeding == SeedableSeeding::Accumulating) last_seed_ = seed;
      // 0.24.x's sampler has no epoch bump of its own; the others count a complete pass.
      if (options_.seeding != SeedableSeeding::FrozenEpoch) ++epoch_;
      return order;
    }
  }
  return SampleOrder::sequential(0);
}

PythonInt Sampler::pass_seed() const {
  const PythonInt base = last_seed_.value_or(options_.initial_seed);
  return base + (mutant(Mutation::SeedIgnoresEpoch) ? 0 : epoch_);
}

bool Sampler::yields_permutation() const noexcept {
  return options_.kind == SamplerKind::Sequential || (!options_.replacement && size() == options_.dataset_len);
}

void Sampler::check_iterate() const {
  if (is_seedable()) (void)torch_seed_or_raise(pass_seed(), "iterate", options_.torch_version);
  if (options_.kind == SamplerKind::LengthGrouped && options_.dataset_len == 0) {
    (void)group_by_length({}, options_.length_grouping->batch_size, {});  // raises argmax's IndexError
  }
}

void Sampler::build_loader_iterator() {
  (void)draw_seed(options_.loader_shares_generator ? generator_ : global_generator_);
}

SampleOrder Sampler::iterate_in_loader(std::int64_t discarded_iterators) {
  for (std::int64_t i = 0; i <= discarded_iterators; ++i) build_loader_iterator();
  return iterate();
}

namespace {

// RandomSampler's draw into ids of type Vector's value_type (4 bytes while the ids fit).
template <typename Vector>
SampleOrder draw_ids(const SamplerOptions& o, std::int64_t count, TorchGenerator& gen) {
  using Id = typename Vector::value_type;
  const std::int64_t n = o.dataset_len;
  if (n == 0) {
    // num_samples > 0 over an empty dataset: RandomSampler.__iter__ fails on its first draw.
    if (o.replacement) {
      throw AccelerateError(PyErrorType::RuntimeError, "iterate",
                            "random_ expects 'from' to be less than 'to', but got from=0 >= to=0");
    }
    throw AccelerateError(PyErrorType::ZeroDivisionError, "iterate", "integer division or modulo by zero");
  }
  Vector ids(static_cast<std::size_t>(count));
  if (o.replacement) {
    // torch draws replacement samples in chunks of 32; the chunking does not change the stream.
    randint_into(std::span<Id>(ids), n, gen);
    return SampleOrder::of(std::move(ids));
  }
  const std::int64_t full = count / n;
  const std::int64_t rest = count % n;
  // RandomSampler calls randperm(n) full times, then once more cut to `rest` (which still consumes
  // the draws even when rest == 0).
  for (std::int64_t k = 0; k < full; ++k) {
    randperm_into(std::span<Id>(ids.data() + k * n, static_cast<std::size_t>(n)), gen, o.torch_version);
  }
  if (rest > 0) {
    Vector scratch(static_cast<std::size_t>(n));
    randperm_into(std::span<Id>(scratch), gen, o.torch_version);
    std::copy(scratch.begin(), scratch.begin() + rest, ids.begin() + full * n);
  } else {
    skip_randperm_draws(n, gen, o.torch_version);
  }
  return SampleOrder::of(std::move(ids));
}

}  // namespace

SampleOrder Sampler::draw(TorchGenerator& gen) const {
  if (!memo_) return draw_uncached(gen);
  const DrawMemo::Key key{DrawMemo::Source::Sampler, options_.dataset_len,   size(),
                          options_.replacement,      options_.torch_version, gen.state()};
  return memo_->draw(key, gen, [this](TorchGenerator& g) { return draw_uncached(g); });
}

SampleOrder Sampler::draw_uncached(TorchGenerator& gen) const {
  if (options_.dataset_len < (std::int64_t{1} << 32)) return draw_ids<IdVector32>(options_, size(), gen);
  return draw_ids<IdVector64>(options_, size(), gen);
}

}  // namespace accel
