// GradientState: the accumulation settings and per-step flags Accelerate shares between the
// Accelerator, the prepared optimizer, scheduler and dataloaders (in Accelerate a process-wide
// singleton; here a value the caller owns and passes to each of them).
//
// Its settings come from GradientAccumulationPlugin.to_kwargs(), which keeps only the arguments that
// differ from the plugin's defaults; GradientState then reads each with its *own* default. The two
// defaults disagree for adjust_scheduler (plugin True, GradientState False), so an Accelerator built
// with the default adjust_scheduler=True runs with adjust_scheduler False. from_plugin() reproduces
// that; the constructor taking Settings sets the state directly.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace accel {

// GradientAccumulationPlugin(...) as the user writes it; the member defaults are the plugin's.
struct GradientAccumulationPlugin {
  std::optional<std::int64_t> num_steps;  // None
  bool adjust_scheduler = true;
  bool sync_with_dataloader = true;
  bool sync_each_batch = false;
};

class GradientState {
 public:
  // The values GradientState reports (num_steps, adjust_scheduler, sync_with_dataloader); the member
  // defaults are what it reports for an argument it was not given.
  struct Settings {
    std::int64_t num_steps = 1;
    bool adjust_scheduler = false;
    bool sync_with_dataloader = true;
    bool sync_each_batch = false;
  };

  GradientState() = default;
  explicit GradientState(Settings settings) : settings_(settings) {}

  // GradientState(gradient_accumulation_plugin=plugin), through to_kwargs().
  static GradientState from_plugin(const GradientAccumulationPlugin& plugin);

  const Settings& settings() const noexcept { return settings_; }
  std::int64_t num_steps() const noexcept { return settings_.num_steps; }
  bool adjust_scheduler() const noexcept { return settings_.adjust_scheduler; }
  bool sync_with_dataloader() const noexcept { return settings_.sync_with_dataloader; }

  // True until something says otherwise: outside accumulate() every optimizer step syncs.
  bool sync_gradients() const noexcept { return sync_gradients_; }
  void set_sync_gradients(bool sync) noexcept { sync_gradients_ = sync; }

  // DataLoaderShard.begin() / end() around a pass, and what the active loader reports after it hands
  // out each batch. Loaders nest (an evaluation loop inside training); the innermost is the active one.
  void begin_dataloader();
  void end_dataloader();
  void update_dataloader(bool end_of_dataloader, std::int64_t remainder);

  bool in_dataloader() const noexcept { return !active_.empty(); }
  // False outside a dataloader, so a loop over plain iterations never gets the end-of-epoch sync.
  bool end_of_dataloader() const noexcept { return in_dataloader() && active_.back().end_of_dataloader; }
  // -1 outside a dataloader.
  std::int64_t remainder() const noexcept { return in_dataloader() ? active_.back().remainder : -1; }

 private:
  struct ActiveLoader {
    bool end_of_dataloader = false;
    std::int64_t remainder = -1;
  };

  Settings settings_;
  bool sync_gradients_ = true;
  std::vector<ActiveLoader> active_;
};

}  // namespace accel
