#include "sampler.hpp"

#include <random>
#include <span>
#include <string>
#include <vector>

#include "error.hpp"
#include "mutation.hpp"

namespace accel {

Sampler::Sampler(SamplerOptions options)
    : options_(options), generator_(options.generator_seed.value_or(0)), global_generator_(options.seed) {
  if (options_.kind != SamplerKind::Sequential) {
    const std::int64_t n = size();
    if (n <= 0) {
      throw AccelerateError(PyErrorType::ValueError, "DataLoader",
                            "num_samples should be a positive integer value, but got num_samples=" +
                                std::to_string(n));
    }
  }
}

std::int64_t Sampler::size() const noexcept {
  if (options_.kind == SamplerKind::Sequential) return options_.dataset_len;
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
    case SamplerKind::SeedableRandom: {
      TorchGenerator gen(options_.seed + (mutant(Mutation::SeedIgnoresEpoch) ? 0 : static_cast<std::uint64_t>(epoch_)));
      if (mutant(Mutation::SeedFromEntropy)) gen.manual_seed(std::random_device{}());
      SampleOrder order = draw(gen);
      ++epoch_;
      return order;
    }
  }
  return SampleOrder::sequential(0);
}

SampleOrder Sampler::draw(TorchGenerator& gen) const {
  const std::int64_t n = options_.dataset_len;
  const std::int64_t count = size();
  if (options_.replacement) {
    // torch draws replacement samples in chunks of 32; the chunking does not change the stream.
    std::vector<std::int64_t> ids(static_cast<std::size_t>(count));
    randint_into(std::span<std::int64_t>(ids), n, gen);
    return SampleOrder::of(std::move(ids));
  }
  const std::int64_t full = count / n;
  const std::int64_t rest = count % n;
  // RandomSampler calls randperm(n) full times, then once more cut to `rest` (which still consumes
  // the draws even when rest == 0).
  if (n < (std::int64_t{1} << 32)) {
    std::vector<std::uint32_t> ids(static_cast<std::size_t>(count));
    std::vector<std::uint32_t> scratch(rest > 0 ? static_cast<std::size_t>(n) : 0);
    for (std::int64_t k = 0; k < full; ++k) {
      randperm_into(std::span<std::uint32_t>(ids.data() + k * n, static_cast<std::size_t>(n)), gen,
                    options_.torch_version);
    }
    if (rest > 0) {
      randperm_into(std::span<std::uint32_t>(scratch), gen, options_.torch_version);
      std::copy(scratch.begin(), scratch.begin() + rest, ids.begin() + full * n);
    } else {
      skip_randperm_draws(n, gen, options_.torch_version);
    }
    return SampleOrder::of(std::move(ids));
  }
  std::vector<std::int64_t> ids(static_cast<std::size_t>(count));
  for (std::int64_t k = 0; k < full; ++k) {
    randperm_into(std::span<std::int64_t>(ids.data() + k * n, static_cast<std::size_t>(n)), gen,
                  options_.torch_version);
  }
  if (rest > 0) {
    auto tail = randperm(n, gen, options_.torch_version);
    std::copy(tail.begin(), tail.begin() + rest, ids.begin() + full * n);
  } else {
    skip_randperm_draws(n, gen, options_.torch_version);
  }
  return SampleOrder::of(std::move(ids));
}

}  // namespace accel
