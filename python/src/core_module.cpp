// accelerate_sim._core: the accel-sim command line, in-process. Python builds the argv (accelerate_sim/_options.py) and
// reads the JSON the CLI prints, so options, validation, messages and the report are the CLI's own.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <tuple>
#include <vector>

#include <cstddef>
#include <span>
#include <stdexcept>

#include "cli/in_process.hpp"
#include "cli/version.hpp"
#include "core/torch_rng_state.hpp"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "accel-sim's command line, run in-process (use the accelerate_sim package, not this module)";
  m.def(
      "run_cli",
      [](const std::vector<std::string>& args) {
        // The GIL stays held: the CLI swaps std::cout/std::cerr while it runs, so calls must not overlap.
        const auto r = accel::cli::run_in_process(args);
        return std::make_tuple(r.exit_code, r.out, r.err);
      },
      nb::arg("args"),
      "Runs `accel-sim ARGS...` in-process; returns (exit_code, stdout, stderr). run/launch/compare/--version are "
      "refused (exit 2).");
  m.def("version_text", &accel::cli::version_text, "What `accel-sim --version` prints.");
  m.def(
      "rng_state_draws",
      [](nb::bytes state) {
        // ValueError (nanobind's translation of std::invalid_argument) names the rule the bytes break.
        const auto s = accel::generator_state_from_torch_rng_state(
            std::span<const std::byte>(static_cast<const std::byte*>(state.data()), state.size()));
        return std::make_pair(s.seed, s.draws);
      },
      nb::arg("state"), "(torch.initial_seed(), 32-bit words drawn since) for the bytes of torch.get_rng_state().");
}
