// accel-sim's evaluation flags (--eval, --use-gather-object, --eval-break-after K): which evaluation loop the
// what-if's eval section and `check --require exact-metrics` simulate over the loader the loader flags describe.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>

#include "trace/trace.hpp"

namespace accel::cli {

struct EvalFlags {
  bool eval = false;
  bool use_gather_object = false;
  std::optional<std::int64_t> break_after;

  // with_switch: also --eval (the what-if); check turns evaluation on through --require exact-metrics.
  void add_to(CLI::App& app, bool with_switch);

  // Whether the loop options were given without --eval (the caller refuses that: they would do nothing).
  bool loop_options_given() const { return use_gather_object || break_after.has_value(); }

  // The metrics case: the loader's first pass, gathered every step.
  trace::MetricsCase metrics_case(const trace::LoaderCase& loader) const;
};

}  // namespace accel::cli
