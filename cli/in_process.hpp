// The accel-sim command line run inside another process (the Python module accelerate_sim): the same cli_main the
// executable runs, with std::cout and std::cerr captured into strings for the duration of the call.
//
// Only the subcommands that compute and print are allowed in-process: the what-if (no subcommand), `trace`,
// `check` and `diff`. `run`, `launch` and `compare` fork or exec (they would replace or duplicate the host
// process), and `--version` / `version` end the process; those are refused with exit code 2 and a message.
// Reading stdin (`-` as a path) reads the host's stdin. Not reentrant: the caller serialises calls (the Python
// module holds the GIL).
#pragma once

#include <string>
#include <vector>

namespace accel::cli {

struct InProcessResult {
  int exit_code = 0;
  std::string out;  // what the command printed on stdout (the report, the trace, the check lines)
  std::string err;  // what it printed on stderr (the error message for exit code 2)
};

// `args` are the command line without the program name, e.g. {"--ranks", "64", "--dataset-len", "1001", "--json"}.
InProcessResult run_in_process(const std::vector<std::string>& args);

}  // namespace accel::cli
