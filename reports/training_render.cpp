#include "training_render.hpp"

#include <sstream>

namespace accel::reports {
namespace {

std::string number(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

}  // namespace

std::string render_training_terminal(const analysis::TrainingSummary& s) {
  std::ostringstream os;
  os << "training (rank 0): gradient_accumulation_steps " << s.gradient_accumulation_steps << ", schedule "
     << s.schedule << ",\n  " << s.steps_per_optimizer_step << " scheduler step"
     << (s.steps_per_optimizer_step == 1 ? "" : "s") << " per optimizer step"
     << (s.split_batches ? " (split_batches on)" : s.num_processes > 1 ? " (num_processes, split_batches off)" : "")
     << ", initial lr " << number(s.initial_lr) << "\n";
  for (const analysis::EpochTraining& ep : s.epochs) {
    os << "\nepoch " << ep.epoch << " (training):\n";
    os << "  optimizer steps    " << ep.optimizer_steps << " taken, " << ep.skipped_steps << " skipped (of "
       << ep.micro_steps << " micro-steps)\n";
    os << "  scheduler steps    " << ep.scheduler_steps << " (last_epoch " << ep.last_epoch_end << ")\n";
    os << "  lr at epoch end    " << number(ep.lr_end) << "\n";
  }
  if (!s.warnings.empty() || s.guarded_steps || s.error) os << "\n";
  for (const auto& w : s.warnings) os << "warning: " << w << "\n";
  if (s.guarded_steps) {
    os << "note: Accelerate's OneCycleLR guard (_step_count <= total_steps) held back " << s.guarded_steps
       << " scheduler steps; last_epoch stays at total_steps, where torch's linear anneal has already gone past"
       << " min_lr (lr " << number(s.epochs.empty() ? s.initial_lr : s.epochs.back().lr_end) << ")\n";
  }
  if (s.error) {
    os << "error: scheduler.step() raised " << s.error->type << " at micro-step " << s.error->micro_step << ": "
       << s.error->message << " (the loop stops there)\n";
  }
  return os.str();
}

}  // namespace accel::reports
