#include "training_render.hpp"

#include <sstream>

#include "reports/warning_render.hpp"

namespace accel::reports {
std::string render_training_terminal(const analysis::TrainingSummary& s) {
  std::ostringstream os;
  os << "training (rank 0): gradient_accumulation_steps " << s.gradient_accumulation_steps << ", schedule "
     << s.schedule << ",\n  " << s.steps_per_optimizer_step << " scheduler step"
     << (s.steps_per_optimizer_step == 1 ? "" : "s") << " per optimizer step"
     << (s.split_batches       ? " (split_batches on)"
         : s.num_processes > 1 ? " (num_processes, split_batches off)"
                               : "")
     << ", initial lr " << analysis::lr_text(s.initial_lr) << "\n";
  for (const analysis::EpochTraining& ep : s.epochs) {
    os << "\nepoch " << ep.epoch << " (training):\n";
    os << "  optimizer steps    " << ep.optimizer_steps << " taken, " << ep.skipped_steps << " skipped (of "
       << ep.micro_steps << " micro-steps)\n";
    os << "  scheduler steps    " << ep.scheduler_steps << " (last_epoch " << ep.last_epoch_end << ")\n";
    os << "  lr at epoch end    " << analysis::lr_text(ep.lr_end) << "\n";
  }
  if (!s.warnings.empty()) os << "\n" << warning_lines(s.warnings);
  return os.str();
}

}  // namespace accel::reports
