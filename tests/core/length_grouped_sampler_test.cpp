// core/length_grouped_sampler against the real transformers.trainer_pt_utils.get_length_grouped_indices.
//
// Where the numbers come from: golden/reference/length_grouped_values.py, run with
// build/reference-venv-transformers-5.25/bin/python (transformers 5.25.0, torch 2.15.0; the 4.57.6 venv prints the
// same), printed for each case below the lengths, the batch_size, the seed of
// torch.Generator().manual_seed(seed), torch.randperm(len(lengths)) from such a generator, and the function's
// result from one seeded alike. The lists are that output, pasted; the two long length lists are the script's
// formulas, written again here.
#include "core/length_grouped_sampler.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/randperm.hpp"
#include "core/sampler.hpp"

namespace accel {
namespace {

std::vector<std::int64_t> mult5_lengths() {  // [(i * 37) % 23 for i in range(40)]
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < 40; ++i) v.push_back((i * 37) % 23);
  return v;
}

std::vector<std::int64_t> cap50_lengths() {  // [(i * 7919) % 101 for i in range(450)]
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < 450; ++i) v.push_back((i * 7919) % 101);
  return v;
}

struct Recorded {
  std::string name;
  std::vector<std::int64_t> lengths;
  std::int64_t batch_size;
  std::uint64_t seed;
  std::vector<std::int64_t> randperm;
  std::vector<std::int64_t> indices;
};

std::vector<Recorded> recorded() {
  return {
      {"distinct-n10-b4", std::vector<std::int64_t>{5, 1, 9, 3, 7, 2, 8, 4, 6, 0}, 4, 42,
       std::vector<std::int64_t>{2, 6, 1, 8, 4, 5, 0, 9, 3, 7},
       std::vector<std::int64_t>{2, 6, 8, 1, 4, 0, 5, 9, 7, 3}},
      {"ties-n23-b2", std::vector<std::int64_t>{3, 1, 3, 2, 1, 3, 2, 2, 1, 3, 1, 2, 3, 1, 2, 3, 3, 1, 2, 1, 2, 3, 1}, 2,
       7, std::vector<std::int64_t>{10, 15, 1, 9, 11, 20, 7, 14, 21, 12, 5, 18, 17, 0, 16, 3, 6, 8, 2, 4, 13, 19, 22},
       std::vector<std::int64_t>{15, 9, 10, 1, 11, 20, 7, 14, 21, 12, 5, 18, 0, 16, 3, 17, 2, 6, 8, 4, 13, 19, 22}},
      {"mult5-n40-b2", mult5_lengths(), 2, 0,
       std::vector<std::int64_t>{4, 16, 21, 5,  11, 14, 39, 29, 17, 26, 2,  6,  20, 25, 24, 1,  15, 32, 28, 18,
                                 9, 0,  10, 19, 8,  36, 27, 7,  37, 38, 31, 30, 35, 12, 3,  34, 33, 22, 23, 13},
       std::vector<std::int64_t>{18, 21, 16, 39, 11, 29, 14, 4,  17, 5, 26, 6,  24, 1,  32, 2,  25, 20, 15, 28,
                                 36, 8,  19, 37, 9,  27, 7,  38, 10, 0, 13, 31, 3,  34, 22, 35, 12, 30, 33, 23}},
      {"cap50-n450-b2", cap50_lengths(), 2, 123,
       std::vector<std::int64_t>{
           382, 405, 128, 9,   26,  207, 252, 379, 335, 160, 261, 352, 372, 78,  362, 324, 286, 296, 235, 271, 280, 20,
           101, 246, 337, 302, 287, 72,  80,  399, 66,  391, 75,  376, 132, 71,  239, 36,  166, 233, 164, 227, 82,  135,
           225, 331, 234, 186, 390, 141, 403, 299, 100, 155, 441, 62,  385, 211, 418, 438, 220, 268, 16,  340, 410, 3,
           204, 44,  255, 325, 306, 43,  301, 85,  327, 436, 350, 22,  88,  262, 143, 68,  322, 253, 122, 191, 84,  109,
           355, 0,   417, 32,  369, 200, 339, 231, 329, 396, 59,  188, 377, 196, 272, 83,  149, 409, 366, 371, 395, 58,
           426, 303, 389, 412, 1,   413, 183, 138, 247, 292, 439, 215, 397, 311, 153, 65,  318, 171, 87,  219, 217, 165,
           89,  284, 351, 193, 30,  79,  205, 428, 259, 34,  99,  334, 343, 93,  112, 226, 293, 422, 238, 378, 326, 319,
           102, 304, 199, 174, 46,  119, 373, 96,  2,   120, 291, 375, 421, 342, 400, 251, 118, 359, 64,  50,  152, 218,
           392, 289, 106, 393, 38,  54,  126, 430, 203, 154, 49,  448, 240, 367, 349, 127, 113, 209, 14,  353, 42,  172,
           401, 256, 195, 181, 346, 47,  248, 146, 320, 315, 444, 201, 208, 388, 446, 361, 232, 354, 305, 398, 134, 97,
           73,  276, 52,  21,  224, 173, 345, 363, 18,  365, 279, 297, 151, 123, 60,  290, 288, 357, 223, 420, 192, 323,
           51,  328, 37,  384, 33,  94,  447, 338, 45,  28,  103, 309, 316, 74,  55,  269, 129, 170, 147, 312, 57,  133,
           35,  387, 27,  162, 249, 40,  229, 321, 310, 41,  285, 4,   91,  159, 433, 244, 442, 294, 39,  202, 245, 140,
           5,   423, 86,  415, 81,  61,  111, 24,  260, 445, 404, 157, 167, 184, 23,  189, 236, 213, 313, 169, 144, 380,
           105, 6,   275, 194, 10,  408, 266, 263, 95,  254, 150, 307, 431, 125, 437, 434, 407, 176, 341, 11,  198, 110,
           358, 76,  15,  429, 257, 115, 221, 449, 281, 187, 427, 148, 440, 137, 242, 416, 114, 145, 131, 237, 270, 228,
           56,  370, 163, 158, 117, 298, 142, 107, 386, 98,  31,  250, 344, 330, 104, 364, 381, 265, 360, 8,   424, 13,
           414, 406, 333, 336, 136, 267, 264, 317, 175, 356, 258, 48,  17,  77,  277, 69,  425, 19,  402, 214, 197, 274,
           180, 411, 222, 435, 185, 443, 273, 314, 348, 295, 332, 230, 161, 53,  124, 178, 419, 139, 432, 308, 278, 116,
           168, 182, 300, 282, 206, 394, 121, 190, 63,  216, 92,  210, 374, 243, 179, 70,  241, 25,  156, 212, 347, 283,
           383, 108, 67,  177, 130, 90,  368, 12,  29,  7},
       std::vector<std::int64_t>{
           335, 234, 436, 32,  399, 128, 160, 261, 362, 59,  325, 22,  155, 352, 246, 44,  379, 71,  204, 337, 135, 438,
           66,  268, 369, 231, 396, 327, 391, 88,  322, 253, 418, 78,  280, 9,   211, 376, 36,  339, 68,  302, 403, 100,
           132, 233, 164, 26,  329, 191, 324, 122, 255, 287, 186, 85,  16,  80,  43,  75,  410, 405, 235, 166, 299, 331,
           262, 225, 390, 188, 220, 252, 82,  385, 417, 109, 141, 72,  3,   306, 301, 200, 62,  296, 227, 20,  355, 286,
           84,  350, 382, 143, 207, 239, 441, 340, 372, 271, 101, 0,   165, 64,  367, 96,  293, 426, 54,  256, 389, 219,
           421, 118, 251, 49,  113, 448, 209, 342, 172, 2,   34,  199, 401, 93,  428, 226, 359, 120, 152, 83,  14,  46,
           349, 413, 174, 238, 371, 334, 366, 196, 430, 127, 58,  292, 393, 154, 319, 218, 149, 351, 112, 378, 38,  240,
           272, 171, 373, 1,   102, 304, 203, 65,  400, 395, 193, 326, 87,  289, 422, 119, 50,  353, 183, 284, 215, 247,
           412, 311, 343, 375, 205, 439, 99,  30,  397, 126, 259, 89,  291, 392, 153, 318, 217, 79,  42,  377, 409, 106,
           138, 303, 133, 27,  229, 192, 91,  224, 123, 357, 288, 86,  320, 384, 81,  315, 310, 39,  140, 305, 103, 167,
           433, 162, 61,  24,  157, 290, 423, 354, 51,  285, 184, 248, 147, 312, 41,  445, 73,  4,   201, 398, 297, 361,
           159, 260, 21,  223, 388, 420, 181, 415, 346, 447, 245, 208, 309, 442, 134, 33,  97,  28,  129, 363, 60,  294,
           55,  18,  321, 151, 316, 146, 45,  279, 444, 40,  173, 338, 35,  269, 232, 365, 195, 94,  328, 57,  323, 52,
           387, 47,  249, 111, 446, 345, 244, 276, 74,  5,   37,  170, 202, 404, 266, 298, 197, 431, 330, 187, 17,  150,
           416, 214, 145, 76,  411, 406, 236, 98,  263, 364, 194, 125, 56,  258, 189, 221, 19,  386, 115, 317, 381, 110,
           142, 344, 275, 105, 408, 307, 440, 137, 169, 270, 31,  435, 265, 95,  228, 425, 356, 117, 250, 48,  213, 11,
           144, 176, 277, 6,   107, 341, 437, 336, 267, 198, 23,  427, 358, 257, 114, 13,  449, 380, 77,  8,   242, 274,
           407, 104, 237, 136, 370, 402, 434, 131, 333, 163, 264, 429, 158, 360, 424, 222, 254, 15,  148, 281, 180, 313,
           10,  414, 175, 69,  394, 182, 283, 12,  347, 278, 177, 108, 7,   443, 241, 273, 374, 300, 332, 130, 29,  295,
           216, 179, 243, 206, 63,  90,  53,  282, 383, 314, 139, 70,  368, 230, 432, 161, 92,  124, 156, 348, 178, 210,
           168, 67,  25,  190, 121, 185, 419, 116, 212, 308}},
      {"single", std::vector<std::int64_t>{4}, 3, 5, std::vector<std::int64_t>{0}, std::vector<std::int64_t>{0}},
      {"equal-n9-b2", std::vector<std::int64_t>{2, 2, 2, 2, 2, 2, 2, 2, 2}, 2, 11,
       std::vector<std::int64_t>{0, 8, 2, 1, 7, 3, 5, 4, 6}, std::vector<std::int64_t>{0, 8, 2, 1, 7, 3, 5, 4, 6}},
      {"zeros-max-n13-b3", std::vector<std::int64_t>{0, 0, 1, 0, 2, 0, 0, 1, 0, 0, 0, 0, 9}, 3, 3,
       std::vector<std::int64_t>{2, 9, 1, 10, 5, 4, 8, 12, 0, 7, 11, 6, 3},
       std::vector<std::int64_t>{12, 9, 1, 4, 10, 5, 2, 8, 0, 7, 11, 6, 3}}};
}

TEST(LengthGroupedSampler, MegabatchSizeIsMinOfQuarterAndFiftyBatches) {
  EXPECT_EQ(length_grouped_megabatch_size(10, 4), 4);     // 10 // 16 = 0 -> 1 batch
  EXPECT_EQ(length_grouped_megabatch_size(23, 2), 4);     // 23 // 8 = 2
  EXPECT_EQ(length_grouped_megabatch_size(40, 2), 10);    // 5
  EXPECT_EQ(length_grouped_megabatch_size(450, 2), 100);  // 56 -> capped at 50
  EXPECT_EQ(length_grouped_megabatch_size(1, 1), 1);
  // Python's ints do not overflow: a batch far past the data is one megabatch of that batch.
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(length_grouped_megabatch_size(1000, huge), huge);
  EXPECT_THROW(length_grouped_megabatch_size(10, 0), std::invalid_argument);
}

TEST(LengthGroupedSampler, MatchesTransformersGetLengthGroupedIndices) {
  for (const Recorded& c : recorded()) {
    SCOPED_TRACE(c.name);
    TorchGenerator perm_gen(c.seed);
    EXPECT_EQ(randperm(static_cast<std::int64_t>(c.lengths.size()), perm_gen), c.randperm);
    EXPECT_EQ(group_by_length(c.lengths, c.batch_size, c.randperm), c.indices);
    TorchGenerator gen(c.seed);
    EXPECT_EQ(length_grouped_indices(c.lengths, c.batch_size, gen), c.indices);
    // The randperm is its only draw: n - 1 words.
    EXPECT_EQ(gen.state().draws, randperm_draws(static_cast<std::int64_t>(c.lengths.size())));
  }
}

TEST(LengthGroupedSampler, LongestFirstAndTiesKeepPermutationOrder) {
  // ties-n23-b2 by hand: megabatches of 4; the first [10, 15, 1, 9] has lengths [1, 3, 1, 3], so the stable
  // descending sort gives [15, 9, 10, 1]: 15 before 9 and 10 before 1, as the randperm had them. Its head (3) is
  // already a global maximum, and argmax takes the first: no swap.
  const Recorded c = recorded()[1];
  ASSERT_EQ(c.name, "ties-n23-b2");
  const auto out = group_by_length(c.lengths, c.batch_size, c.randperm);
  EXPECT_EQ((std::vector<std::int64_t>(out.begin(), out.begin() + 4)), (std::vector<std::int64_t>{15, 9, 10, 1}));
  // zeros-max-n13-b3: megabatches of 3; the maximum (9, sample 12) heads megabatch 2 once sorted and is swapped to
  // the front; the head it displaces (sample 2, length 1) takes its place at position 6.
  const Recorded z = recorded()[6];
  ASSERT_EQ(z.name, "zeros-max-n13-b3");
  const auto zo = group_by_length(z.lengths, z.batch_size, z.randperm);
  EXPECT_EQ(zo.front(), 12);
  EXPECT_EQ(zo[6], 2);
}

TEST(LengthGroupedSampler, EmptyRaisesTorchArgmaxIndexError) {
  // The script's "empty" line: IndexError "argmax(): Expected reduction dim to be specified for input.numel() == 0."
  TorchGenerator gen(0);
  try {
    (void)length_grouped_indices({}, 2, gen);
    FAIL() << "expected an IndexError";
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.type(), PyErrorType::IndexError);
    EXPECT_EQ(e.message(), "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  }
}

// The sampler as Trainer's loader holds it: no generator of its own, so each pass draws its randperm from the
// process's global generator, after the DataLoader iterator's _base_seed (one int64 random_(): two words).
TEST(LengthGroupedSampler, SamplerDrawsFromTheGlobalGeneratorEveryPass) {
  const Recorded c = recorded()[0];
  SamplerOptions o;
  o.kind = SamplerKind::LengthGrouped;
  o.dataset_len = static_cast<std::int64_t>(c.lengths.size());
  o.seed = c.seed;
  o.length_grouping = LengthGrouping{c.batch_size, std::make_shared<const std::vector<std::int64_t>>(c.lengths), std::nullopt};
  Sampler sampler(o);
  EXPECT_FALSE(sampler.has_set_epoch());
  EXPECT_FALSE(sampler.has_synchronized_generator());
  EXPECT_TRUE(sampler.yields_permutation());
  const SampleOrder first = sampler.iterate();
  for (std::int64_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i], c.indices[static_cast<std::size_t>(i)]);
  // The next pass goes on from the same generator: base seed (2 words), then the next randperm.
  const SampleOrder second = sampler.iterate_in_loader();
  TorchGenerator global(c.seed);
  (void)randperm(o.dataset_len, global);
  (void)global.random64();
  const auto expected = length_grouped_indices(c.lengths, c.batch_size, global);
  for (std::int64_t i = 0; i < second.size(); ++i) EXPECT_EQ(second[i], expected[static_cast<std::size_t>(i)]);
  EXPECT_EQ(sampler.process_generator_state(), global.state());
  // With a generator of its own (prepare_data_loader's, use_seedable_sampler false on several processes) the global
  // generator gives only the _base_seed.
  o.generator_seed = c.seed;
  Sampler own(o);
  EXPECT_TRUE(own.has_synchronized_generator());
  const SampleOrder mine = own.iterate_in_loader();
  for (std::int64_t i = 0; i < mine.size(); ++i) EXPECT_EQ(mine[i], c.indices[static_cast<std::size_t>(i)]);
  EXPECT_EQ(own.process_generator_state().draws, 2u);
}

}  // namespace
}  // namespace accel
