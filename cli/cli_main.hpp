// The accel-sim command line as a function: argv in, exit code out, the report on std::cout and messages on
// std::cerr. The executable (cli/accel_sim_main.cpp) is only main() calling it, so that the Python module can run
// the very same code path in-process (cli/in_process.hpp).
#pragma once

namespace accel::cli {

// Exit codes as documented in --help: 0 ok, 1 a requirement failed / traces differ, 2 bad input or a configuration
// Accelerate rejects, 70 internal error (run/launch also 3 and 4).
int cli_main(int argc, char** argv);

}  // namespace accel::cli
