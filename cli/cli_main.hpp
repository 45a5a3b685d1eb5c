// The accel-sim command line as a function: argv in, exit code out, the report on std::cout and messages on
// std::cerr. The executable (cli/accel_sim_main.cpp) is only main() calling it, so that the Python module can run
// the very same code path in-process (cli/in_process.hpp).
#pragma once

#include <string>
#include <vector>

namespace accel::cli {

// Exit codes as documented in --help: 0 ok, 1 a requirement failed / traces differ, 2 bad input or a configuration
// Accelerate rejects, 70 internal error (run/launch also 3 and 4).
int cli_main(int argc, char** argv);

// Every long option of every command as cli_main builds them (the fuzzer generates its command lines from
// this list and cli/integer_flag.hpp's bounds): "" is the what-if, otherwise the subcommand's name.
struct CommandLineOption {
  std::string command;
  std::string name;  // "--ranks" (the first long name)
  bool takes_value = false;
  std::string type_name;  // CLI11's, e.g. "TEXT:{accelerator,prepare_data_loader}" or "INT in [1, 65536]"
};
std::vector<CommandLineOption> command_line_options();

}  // namespace accel::cli
