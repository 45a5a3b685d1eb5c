// IdRanges: runs of consecutive ids, capped by the number of runs, and their text.
#include "core/id_ranges.hpp"

#include <gtest/gtest.h>

namespace accel {
namespace {

TEST(IdRanges, ConsecutiveIdsMergeIntoOneRun) {
  IdRanges ids(2);
  for (SampleId id = 0; id < 176; ++id) ASSERT_TRUE(ids.add(id));
  ASSERT_EQ(ids.ranges().size(), 1u);
  EXPECT_EQ(ids.ranges()[0], (IdRange{0, 175}));
  EXPECT_EQ(ids.count(), 176);
  EXPECT_EQ(format_id_ranges(ids, 176), "0-175");
}

TEST(IdRanges, TheCapCountsRunsAndRefusesEverythingAfterTheFirstRefusal) {
  IdRanges ids(2);
  EXPECT_TRUE(ids.add(5));
  EXPECT_TRUE(ids.add(9));
  EXPECT_TRUE(ids.add(10));   // extends the second run
  EXPECT_FALSE(ids.add(3));   // a third run
  EXPECT_FALSE(ids.add(11));  // would extend, but the ids held must stay a prefix of those offered
  EXPECT_TRUE(ids.closed());
  EXPECT_EQ(ids.count(), 3);
  EXPECT_EQ(format_id_ranges(ids, 5), "5, 9, 10, ...");
}

TEST(IdRanges, TwoIdsReadAsAListAndRunsAsRanges) {
  IdRanges ids;
  ids.add_run(0, 22);
  ids.add(40);
  ids.add(41);
  ids.add(7);
  EXPECT_EQ(format_id_ranges(ids, ids.count()), "0-22, 40, 41, 7");
  EXPECT_EQ(ids.first_ids(3), (std::vector<SampleId>{0, 1, 2}));
  EXPECT_EQ(ids.first_ids(100).size(), 26u);
}

TEST(IdRanges, EmptyRunsChangeNothing) {
  IdRanges ids;
  EXPECT_TRUE(ids.add_run(4, 3));
  EXPECT_TRUE(ids.empty());
  EXPECT_EQ(format_id_ranges(ids, 0), "");
  EXPECT_EQ(format_id_ranges(ids, 2), "...");
}

}  // namespace
}  // namespace accel
