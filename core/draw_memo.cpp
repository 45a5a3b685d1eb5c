#include "draw_memo.hpp"

namespace accel {

SampleOrder DrawMemo::draw(const Key& key, TorchGenerator& gen, const std::function<SampleOrder(TorchGenerator&)>& f) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = drawn_.find(key);
    if (it != drawn_.end()) {
      gen.set_state(it->second.after);  // lazy: the skipped draws cost nothing until read
      return it->second.order;
    }
  }
  SampleOrder order = f(gen);  // outside the lock: other ranks' hits need not wait for a draw
  std::lock_guard<std::mutex> lock(mu_);
  if (stored_ + order.size() <= budget_ && drawn_.emplace(key, Drawn{order, gen.state()}).second)
    stored_ += order.size();
  return order;
}

}  // namespace accel
