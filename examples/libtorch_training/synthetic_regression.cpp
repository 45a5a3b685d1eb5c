#include "synthetic_regression.hpp"

#include <stdexcept>
#include <string>

Sample SyntheticRegression::get(std::size_t index) {
  if (index >= size_) throw std::out_of_range("SyntheticRegression: no sample " + std::to_string(index));
  const double n = static_cast<double>(size_);
  // The second feature scatters i over [0, 1) so the two features are not collinear.
  const double x0 = static_cast<double>(index) / n;
  const double x1 = static_cast<double>((index * 7919) % size_) / n;
  const double y = 3.0 * x0 - 2.0 * x1 + 0.5;
  return Sample{static_cast<std::int64_t>(index), torch::tensor({x0, x1}, torch::kFloat),
                torch::tensor({y}, torch::kFloat)};
}
