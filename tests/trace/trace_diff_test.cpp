// The trace diff: finds the first divergence, in the domain's words, and ignores provenance.
#include <gtest/gtest.h>

#include "trace/trace_diff.hpp"

namespace accel::trace {
namespace {

Json sample() {
  return Json::parse(R"({"case":"c","reference":{"torch":"1.13"},"ranks":[{"rank":0,"epochs":[{"batches":[[0,1],[2,3]]}]},
                                                                  {"rank":1,"epochs":[{"batches":[[4,5],[6,7]]}]}]})");
}

TEST(TraceDiff, IdenticalExceptReferenceIsEqual) {
  Json a = sample(), b = sample();
  b["reference"] = Json{{"generator", "accel-sim"}};
  EXPECT_FALSE(first_divergence(a, b).has_value());
}

TEST(TraceDiff, NamesRankEpochAndBatch) {
  Json a = sample(), b = sample();
  b["ranks"][1]["epochs"][0]["batches"][1][0] = 9;
  const auto d = first_divergence(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, "ranks[1].epochs[0].batches[1][0]");
  EXPECT_EQ(d->location, "rank 1, epoch 0, batch 1");
  EXPECT_EQ(d->expected, "6");
  EXPECT_EQ(d->actual, "9");
}

TEST(TraceDiff, MissingBatchAndFloatTolerance) {
  Json a = sample(), b = sample();
  b["ranks"][0]["epochs"][0]["batches"].erase(1);
  const auto d = first_divergence(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->actual, "(absent)");
  EXPECT_FALSE(first_divergence(Json{{"lr", 0.1}}, Json{{"lr", 0.1 + 1e-17}}).has_value());
  EXPECT_TRUE(first_divergence(Json{{"lr", 0.1}}, Json{{"lr", 0.1001}}).has_value());
}

// gloo's "Connection closed by peer" names its source line and the peer's address and port: the recorder's build and
// machine. Two recordings of one job differ there only; any other word of the message still counts.
TEST(TraceDiff, ClosedConnectionComparedWithoutGlooLocationAndPeerAddress) {
  const auto with = [](const std::string& message) {
    return Json{
        {"ranks", {{{"rank", 1}, {"epochs", {{{"error", {{"type", "RuntimeError"}, {"message", message}}}}}}}}}};
  };
  const std::string tail = ". This is typically caused by a remote worker crashing.";
  const Json recorded = with(
      "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:561] Connection "
      "closed by peer [127.0.0.1]:2443" +
      tail);
  EXPECT_FALSE(first_divergence(recorded, with("[../third_party/gloo/pair.cc:598] Connection closed by peer "
                                               "[10.0.0.7]:50361" +
                                               tail)));
  EXPECT_FALSE(
      first_divergence(recorded, with("[gloo/transport/tcp/pair.cc] Connection closed by peer [rank 0]:port" + tail)));
  EXPECT_TRUE(first_divergence(recorded, with("[gloo/transport/tcp/pair.cc] Connection closed by peer [rank 0]:port. "
                                              "Something else.")));
  Json other_type = with("[x] Connection closed by peer [127.0.0.1]:1" + tail);
  other_type["ranks"][0]["epochs"][0]["error"]["type"] = "ValueError";
  EXPECT_TRUE(first_divergence(recorded, other_type)) << "only a RuntimeError's message is normalised";
}

}  // namespace
}  // namespace accel::trace
