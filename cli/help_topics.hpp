// `accel-sim help [TOPIC]`: help by the question a user has. A topic is a command (its --help), a family of
// the what-if's options (only that group, with the docs page that explains it), or a short reference text
// (requirements, finding codes, exit codes). The option texts come from the parser itself, so help and
// --help never disagree.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace accel::cli {

// Prints the topic list (no topic) or one topic to `out` and returns 0; with `page`, the topic's docs page as built
// into the executable (cli/docs_pages.hpp). An unknown topic is an error on `err` naming the nearest one, exit 2.
int print_help_topic(const CLI::App& app, const std::optional<std::string>& topic, std::ostream& out, std::ostream& err,
                     bool page = false);

}  // namespace accel::cli
