// SyntheticRegression: a map-style torch::data dataset whose sample i is known in closed form (its features are
// functions of i, its target a fixed linear function of them), so a rank can report exactly which samples it
// trained on and the model has something real to fit.
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <cstdint>

struct Sample {
  std::int64_t id = 0;
  torch::Tensor x;  // 2 features
  torch::Tensor y;  // 1 target
};

class SyntheticRegression : public torch::data::datasets::Dataset<SyntheticRegression, Sample> {
 public:
  explicit SyntheticRegression(std::size_t size) : size_(size) {}
  Sample get(std::size_t index) override;
  torch::optional<std::size_t> size() const override { return size_; }

 private:
  std::size_t size_;
};
