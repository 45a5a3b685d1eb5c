// `accel-sim help --man`: the manual page accel-sim.1 (roff, man(7) macros) written from the parser itself, so
// every command and option it lists is one the command line has, described as --help describes it.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace accel::cli {

// accel-sim.1 for `app`, which must carry every command's options: NAME, SYNOPSIS, DESCRIPTION, the what-if's
// OPTIONS by group, COMMANDS (each with its arguments and options), EXAMPLES (--help's footer), EXIT STATUS and
// SEE ALSO.
std::string man_page(const CLI::App& app);

}  // namespace accel::cli
