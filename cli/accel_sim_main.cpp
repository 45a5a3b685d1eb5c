// The accel-sim executable: the command line of cli/main.cpp, nothing else.
#include "cli/cli_main.hpp"

int main(int argc, char** argv) { return accel::cli::cli_main(argc, argv); }
