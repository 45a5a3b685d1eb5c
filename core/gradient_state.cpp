#include "gradient_state.hpp"

namespace accel {

GradientState GradientState::from_plugin(const GradientAccumulationPlugin& plugin) {
  const GradientAccumulationPlugin defaults;
  Settings s;  // GradientState's own defaults, for every argument to_kwargs() drops
  if (plugin.num_steps != defaults.num_steps) s.num_steps = *plugin.num_steps;
  if (plugin.adjust_scheduler != defaults.adjust_scheduler) s.adjust_scheduler = plugin.adjust_scheduler;
  if (plugin.sync_with_dataloader != defaults.sync_with_dataloader) s.sync_with_dataloader = plugin.sync_with_dataloader;
  if (plugin.sync_each_batch != defaults.sync_each_batch) s.sync_each_batch = plugin.sync_each_batch;
  return GradientState(s);
}

void GradientState::begin_dataloader() { active_.push_back({}); }

void GradientState::end_dataloader() {
  if (!active_.empty()) active_.pop_back();
}

void GradientState::update_dataloader(bool end_of_dataloader, std::int64_t remainder) {
  if (active_.empty()) return;
  active_.back() = {end_of_dataloader, remainder};
}

}  // namespace accel
