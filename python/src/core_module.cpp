// accel_sim._core: the accel-sim command line, in-process. Python builds the argv (accel_sim/_options.py) and
// reads the JSON the CLI prints, so options, validation, messages and the report are the CLI's own.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <tuple>
#include <vector>

#include "cli/in_process.hpp"
#include "cli/version.hpp"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "accel-sim's command line, run in-process (use the accel_sim package, not this module)";
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
}
