#include "resume_render.hpp"

#include <sstream>

#include "reports/text_table.hpp"
#include "trace/trace_json.hpp"

namespace accel::reports {
namespace {

trace::Json delta_json(const analysis::IdDelta& d) {
  trace::Json j;
  j["count"] = d.count;
  j["first"] = d.first.first_ids(analysis::kResumeFirstIds);
  j["id_ranges"] = trace::id_ranges_json(d.first);
  return j;
}

std::string shape_text(const analysis::ResumeReport& r) {
  const auto& c = r.config;
  const std::int64_t ranks = c.resume.resume_ranks.value_or(c.job.prepare.num_processes);
  return std::to_string(ranks) + (ranks == 1 ? " process" : " processes") + ", batch size " +
         std::to_string(c.resume.resume_batch_size.value_or(c.job.loader.batch_size));
}

}  // namespace

std::string render_resume_terminal(const analysis::ResumeReport& r) {
  const auto& s = r.config.resume;
  std::ostringstream os;
  os << "Resume from save_state at epoch " << s.epoch << ", after " << s.step << " of " << r.batches_per_epoch
     << " batches per rank, with " << trace::mode_name(s.mode) << (s.loop_set_epoch ? ", set_epoch in the loop" : "")
     << "; restarted on " << shape_text(r);
  if (s.skip && *s.skip != s.step) os << ", skipping " << *s.skip << " batches";
  os << "\n";
  if (r.conversion) os << "  " << *r.conversion << "\n";
  os << render_resume_outcome(r.outcome);
  for (const auto& why : r.reasons) os << "  why: " << why << "\n";
  os << "  recipe: " << r.recipe.statement << "\n";
  return os.str();
}

std::string render_resume_outcome(const analysis::ResumeOutcome& outcome) {
  std::ostringstream os;
  os << "  " << (outcome.identical ? "IDENTICAL to the uninterrupted run" : "NOT identical to the uninterrupted run")
     << (outcome.same_shape ? "" : " (another shape: compared sample for sample per epoch)") << "\n";
  TextTable table({"epoch", "identical", "extra", "missing", "first extra ids / first missing ids"});
  for (const auto& e : outcome.epochs) {
    std::ostringstream ids;
    if (e.extra.count || e.missing.count)
      ids << "[" << format_id_ranges(e.extra.first) << "] / [" << format_id_ranges(e.missing.first) << "]";
    table.add({std::to_string(e.epoch), e.identical ? "yes" : "no", std::to_string(e.extra.count),
               std::to_string(e.missing.count), ids.str()});
  }
  os << table.render();
  return os.str();
}

trace::Json render_resume_input(const analysis::ResumeReport& r) {
  const auto& c = r.config;
  trace::Json j;
  j["epoch"] = c.resume.epoch;
  j["step"] = c.resume.step;
  j["with"] = trace::mode_name(c.resume.mode);
  j["loop_set_epoch"] = c.resume.loop_set_epoch;
  j["resume_ranks"] = c.resume.resume_ranks.value_or(c.job.prepare.num_processes);
  j["resume_batch_size"] = c.resume.resume_batch_size.value_or(c.job.loader.batch_size);
  j["skip"] = c.resume.mode == trace::ResumeMode::Stateful ? c.resume.step : c.resume.skip.value_or(c.resume.step);
  j["converted_from"] = r.conversion ? trace::Json(*r.conversion) : trace::Json(nullptr);
  return j;
}

trace::Json render_resume_json(const analysis::ResumeReport& r) {
  const auto& c = r.config;
  trace::Json j;
  j["at"] = {{"epoch", c.resume.epoch}, {"step", c.resume.step}};
  j["converted_from"] = r.conversion ? trace::Json(*r.conversion) : trace::Json(nullptr);
  j["with"] = trace::mode_name(c.resume.mode);
  j["loop_set_epoch"] = c.resume.loop_set_epoch;
  j["ranks"] = c.job.prepare.num_processes;
  j["resume_ranks"] = c.resume.resume_ranks.value_or(c.job.prepare.num_processes);
  j["batch_size"] = c.job.loader.batch_size;
  j["resume_batch_size"] = c.resume.resume_batch_size.value_or(c.job.loader.batch_size);
  j["skip"] = c.resume.mode == trace::ResumeMode::Stateful ? c.resume.step : c.resume.skip.value_or(c.resume.step);
  j["batches_per_epoch"] = r.batches_per_epoch;
  put_resume_outcome_json(j, r.outcome);
  j["reasons"] = r.reasons;
  j["recipe"] = render_recipe_json(r.recipe);
  return j;
}

void put_resume_outcome_json(trace::Json& j, const analysis::ResumeOutcome& outcome) {
  j["identical"] = outcome.identical;
  j["same_shape"] = outcome.same_shape;
  j["extra"] = delta_json(outcome.extra);
  j["missing"] = delta_json(outcome.missing);
  trace::Json epochs = trace::Json::array();
  for (const auto& e : outcome.epochs) {
    epochs.push_back({{"epoch", e.epoch}, {"identical", e.identical}, {"extra", delta_json(e.extra)},
                      {"missing", delta_json(e.missing)}});
  }
  j["epochs"] = std::move(epochs);
}

trace::Json render_recipe_json(const analysis::ResumeRecipe& recipe) {
  trace::Json changes = trace::Json::array();
  for (const auto& ch : recipe.changes) changes.push_back({{"change", ch.what}, {"flag", ch.flag}});
  return {{"needed", recipe.needed}, {"found", recipe.found}, {"verified", recipe.found},
          {"changes", std::move(changes)}, {"statement", recipe.statement},
          {"candidates_simulated", recipe.candidates_simulated}};
}

}  // namespace accel::reports
