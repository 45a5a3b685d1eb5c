// DrawMemo: a sampler that takes a stored draw ends exactly where drawing it would have left it, over
// epochs, for every sampler kind; a stored order is shared, not drawn again.
#include <gtest/gtest.h>

#include <memory>

#include "core/draw_memo.hpp"
#include "core/sampler.hpp"

namespace accel {
namespace {

std::vector<std::int64_t> ids(const SampleOrder& o) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < o.size(); ++i) out.push_back(o[i]);
  return out;
}

TEST(DrawMemo, MemoisedSamplersDrawWhatPlainOnesDraw) {
  for (SamplerKind kind : {SamplerKind::Random, SamplerKind::SeedableRandom}) {
    for (bool own_generator : {false, true}) {
      for (bool replacement : {false, true}) {
        SamplerOptions o;
        o.kind = kind;
        o.dataset_len = 37;
        o.num_samples = replacement ? 50 : 45;
        o.replacement = replacement;
        o.seed = 99;
        o.initial_seed = 7;
        if (own_generator) o.generator_seed = 5;
        auto memo = std::make_shared<DrawMemo>();
        Sampler plain(o), first(o), second(o);
        first.share_draws(memo);
        second.share_draws(memo);
        for (int epoch = 0; epoch < 3; ++epoch) {
          const auto expected = ids(plain.iterate_in_loader());
          EXPECT_EQ(ids(first.iterate_in_loader()), expected);
          EXPECT_EQ(ids(second.iterate_in_loader()), expected) << "from the memo";
          EXPECT_EQ(second.generator_state(), plain.generator_state());
          EXPECT_EQ(second.process_generator_state(), plain.process_generator_state());
          EXPECT_EQ(second.epoch(), plain.epoch());
        }
      }
    }
  }
}

TEST(DrawMemo, AStoredDrawIsNotDrawnAgainAndTheBudgetBoundsWhatIsKept) {
  DrawMemo memo(10);
  int draws = 0;
  const auto f = [&](TorchGenerator& g) {
    ++draws;
    return randperm_order(8, g);
  };
  TorchGenerator a(3), b(3);
  const DrawMemo::Key key{DrawMemo::Source::DatasetRandperm, 8, 8, false, TorchVersion::v2_6, a.state()};
  const auto x = ids(memo.draw(key, a, f));
  const auto y = ids(memo.draw(key, b, f));
  EXPECT_EQ(x, y);
  EXPECT_EQ(draws, 1);
  EXPECT_EQ(a.state(), b.state());
  // Past the budget (10 ids): drawn every time, never stored.
  TorchGenerator c(4), d(4);
  const DrawMemo::Key other{DrawMemo::Source::DatasetRandperm, 8, 8, false, TorchVersion::v2_6, c.state()};
  EXPECT_EQ(ids(memo.draw(other, c, f)), ids(memo.draw(other, d, f)));
  EXPECT_EQ(draws, 3);
}

}  // namespace
}  // namespace accel
