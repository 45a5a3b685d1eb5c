#include "eval_flags.hpp"
#include "cli/integer_flag.hpp"
#include "trace/trace_json.hpp"

namespace accel::cli {

void EvalFlags::add_to(CLI::App& app, bool with_switch) {
  if (with_switch) {
    app.add_flag("--eval", eval,
                 "add the evaluation section: what accelerator.gather_for_metrics hands the metric over one pass");
  }
  app.add_flag("--use-gather-object,--use_gather_object", use_gather_object,
               "the evaluation loop calls gather_for_metrics(batch, use_gather_object=True)");
  add_integer(app, "--eval-break-after", break_after, "the evaluation loop breaks when it reaches this step");
}

trace::MetricsCase EvalFlags::metrics_case(const trace::LoaderCase& loader) const {
  if (loader.loader.hf_dataset || loader.loader.hf_map_shuffle_seed) {
    throw trace::ConfigError("--eval: gather_for_metrics over a HuggingFace dataset (--dataset hf-iterable / hf-map) is not simulated (not recorded)");
  }
  trace::MetricsCase m;
  m.loader = loader;
  m.use_gather_object = use_gather_object;
  m.break_after = break_after;
  return m;
}

}  // namespace accel::cli
