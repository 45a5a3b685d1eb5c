// `accel-sim completion bash|zsh|fish`: shell completion scripts written from the parser itself (the CLI::App
// with every command's options), so a new command, option or choice is completed the moment it exists and the
// scripts cannot drift from --help. This file owns the shells' script layouts; what is completed comes from the App.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace accel::cli {

// The shells there is a script for (the `completion` command's choices).
inline constexpr std::array<std::string_view, 3> kCompletionShells = {"bash", "zsh", "fish"};

// The completion script of `shell` (one of kCompletionShells) for `app`, which must carry every command's options.
// It completes the commands, every long option of the command on the line, the fixed choices of an option that
// has them (CLI11's IsMember, or a type name "TEXT:{a,b}"), file names for any other text value, nothing for a
// number, and the help topics. Throws std::invalid_argument for another shell.
std::string completion_script(const CLI::App& app, std::string_view shell);

}  // namespace accel::cli
