// The completion scripts: the App read into commands, options and the kind of value each takes, then written in
// each shell's own completion language.
#include "cli/completion.hpp"

#include <CLI/CLI.hpp>

#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cli/help_topics.hpp"
#include "cli/version.hpp"

namespace accel::cli {
namespace {

// What the word after an option (or a positional) completes to.
enum class Value {
  None,     // a flag: no value
  Choices,  // a fixed set (IsMember, or a type name "TEXT:{a,b}")
  Files,    // any other text: a path is the likely value, as bash's own default completion assumes
  Free,     // a number or a version: nothing a shell can list
};

struct OptionModel {
  std::vector<std::string> names;  // "--ranks", "--num-processes", ...: the first is the one --help leads with
  Value value = Value::None;
  std::vector<std::string> choices;
  std::string help;  // one line
};

struct CommandModel {
  std::string name;  // "" for the root command (the what-if)
  std::string help;
  std::vector<OptionModel> options;
  // The command's positional arguments complete alike (diff's two traces, help's topic, completion's shell).
  std::optional<OptionModel> positional;
};

// "{a,b,c}" inside CLI11's type name: IsMember writes its set there, and --torch-version names its releases so.
std::vector<std::string> choices_of(const std::string& type_name) {
  const auto open = type_name.find('{');
  const auto close = type_name.find('}', open);
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos) return out;
  std::stringstream list(type_name.substr(open + 1, close - open - 1));
  for (std::string item; std::getline(list, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// The first line of a description, cut at a word near 80 characters: a completion menu shows one line per option.
std::string one_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  constexpr std::size_t kWidth = 80;
  if (line.size() <= kWidth) return line;
  const auto space = line.rfind(' ', kWidth - 3);
  return line.substr(0, space == std::string::npos ? kWidth - 3 : space) + "...";
}

OptionModel option_model(const CLI::Option& o) {
  OptionModel m;
  for (const std::string& name : o.get_lnames()) m.names.push_back("--" + name);
  m.help = one_line(o.get_description());
  const std::string type = o.get_type_name();
  m.choices = choices_of(type);
  if (o.get_expected_max() == 0) {
    m.value = Value::None;
  } else if (!m.choices.empty()) {
    m.value = Value::Choices;
  } else if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0 || type.rfind("FLOAT", 0) == 0 ||
             type.rfind("NUMBER", 0) == 0 || type.find("X.Y.Z") != std::string::npos) {
    m.value = Value::Free;
  } else {
    m.value = Value::Files;
  }
  return m;
}

// The topic names of `accel-sim help`, read from its own list (two spaces, the name, the summary).
std::vector<std::string> help_topics(const CLI::App& app) {
  std::ostringstream out, err;
  (void)print_help_topic(app, std::nullopt, out, err);
  std::istringstream in(out.str());
  std::vector<std::string> names;
  bool listing = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Topics:") {
      listing = true;
    } else if (listing && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (listing && line.empty()) {
      break;
    }
  }
  return names;
}

CommandModel command_model(const CLI::App& app, const std::string& name) {
  CommandModel c;
  c.name = name;
  c.help = one_line(app.get_description());
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group().empty()) continue;  // hidden
    if (o->get_positional() && !o->nonpositional()) {
      if (!c.positional) c.positional = option_model(*o);
      continue;
    }
    if (o->get_lnames().empty()) continue;  // -h only
    c.options.push_back(option_model(*o));
  }
  return c;
}

// The root command first, then every subcommand in --help's order.
std::vector<CommandModel> commands_of(const CLI::App& app) {
  std::vector<CommandModel> out{command_model(app, "")};
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    out.push_back(command_model(*sub, sub->get_name()));
    // The topics are help's own table, not options: read from what `accel-sim help` prints.
    if (sub->get_name() == "help" && out.back().positional) {
      out.back().positional->choices = help_topics(app);
      out.back().positional->value = out.back().positional->choices.empty() ? Value::Free : Value::Choices;
    }
  }
  return out;
}

// 'text' for a POSIX shell: no character is special inside single quotes, and a quote is closed, escaped, reopened.
std::string sh_quote(const std::string& text) {
  std::string out = "'";
  for (const char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// 'text' for fish, whose single quotes take \\ and \' as escapes.
std::string fish_quote(const std::string& text) {
  std::string out = "'";
  for (const char ch : text) {
    if (ch == '\'' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "'";
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string header(std::string_view shell) {
  return "# " + std::string(shell) + " completion for accel-sim " + accel_sim_version() +
         ": generated by `accel-sim completion " + std::string(shell) +
         "` from its own option table (regenerate it after an upgrade).\n";
}

std::string bash_script(const std::vector<CommandModel>& commands) {
  std::ostringstream s;
  s << header("bash")
    << "# Install: accel-sim completion bash > ~/.local/share/bash-completion/completions/accel-sim\n"
       "_accel_sim() {\n"
       "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\" cmd=\"\" i\n"
       "  ((COMP_CWORD > 0)) && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
       "  # --option=value: bash splits the word at '=' (COMP_WORDBREAKS).\n"
       "  if [[ \"$cur\" == \"=\" ]]; then\n"
       "    cur=\"\"\n"
       "  elif [[ \"$prev\" == \"=\" ]] && ((COMP_CWORD > 1)); then\n"
       "    prev=\"${COMP_WORDS[COMP_CWORD-2]}\"\n"
       "  fi\n"
       "  # The command is the first word that names one; without one the options are the what-if's.\n"
       "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
       "    case \"${COMP_WORDS[i]}\" in\n";
  std::vector<std::string> names;
  for (const auto& c : commands) {
    if (!c.name.empty()) names.push_back(c.name);
  }
  s << "      " << join(names, "|") << ") cmd=\"${COMP_WORDS[i]}\"; break ;;\n"
    << "    esac\n"
       "  done\n";

  // The value of the option before the cursor; patterns grouped by what they complete to.
  std::map<std::string, std::vector<std::string>> by_action;
  const auto action_of = [](const OptionModel& o) -> std::string {
    switch (o.value) {
      case Value::Choices:
        return "mapfile -t COMPREPLY < <(compgen -W " + sh_quote(join(o.choices, " ")) + " -- \"$cur\")";
      case Value::Files:
        return "compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")";
      case Value::Free:
      case Value::None:
        break;
    }
    return "COMPREPLY=()";
  };
  for (const auto& c : commands) {
    for (const auto& o : c.options) {
      if (o.value == Value::None) continue;
      for (const auto& name : o.names) by_action[action_of(o)].push_back("\"" + c.name + " " + name + "\"");
    }
  }
  s << "  case \"$cmd $prev\" in\n";
  for (const auto& [action, patterns] : by_action) {
    s << "    " << join(patterns, "|") << ")\n      " << action << "\n      return ;;\n";
  }
  s << "  esac\n"
       "  if [[ \"$cur\" == -* ]]; then\n"
       "    case \"$cmd\" in\n";
  for (const auto& c : commands) {
    std::vector<std::string> options;
    for (const auto& o : c.options) options.insert(options.end(), o.names.begin(), o.names.end());
    s << "      \"" << c.name << "\") mapfile -t COMPREPLY < <(compgen -W " << sh_quote(join(options, " "))
      << " -- \"$cur\") ;;\n";
  }
  s << "    esac\n"
       "    return\n"
       "  fi\n"
       "  case \"$cmd\" in\n"
       "    \"\") mapfile -t COMPREPLY < <(compgen -W "
    << sh_quote(join(names, " ")) << " -- \"$cur\") ;;\n";
  for (const auto& c : commands) {
    if (c.name.empty() || !c.positional) continue;
    s << "    " << c.name << ") " << action_of(*c.positional) << " ;;\n";
  }
  s << "  esac\n"
       "}\n"
       "complete -F _accel_sim accel-sim\n";
  return s.str();
}

// Inside an _arguments spec's [description] and a _describe entry: brackets, colons and backslashes are syntax.
std::string zsh_escape(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '[' || ch == ']' || ch == ':' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

std::string zsh_value(const OptionModel& o, const std::string& label) {
  switch (o.value) {
    case Value::Choices:
      return ":" + label + ":(" + join(o.choices, " ") + ")";
    case Value::Files:
      return ":" + label + ":_files";
    case Value::Free:
      return ":" + label + ": ";  // a message, nothing listed
    case Value::None:
      break;
  }
  return "";
}

// One _arguments spec per option, its spellings excluding one another: '(--a --b)'{--a=,--b=}'[help]:value:...'.
std::string zsh_spec(const OptionModel& o) {
  std::string names;
  if (o.names.size() == 1) {
    names = o.names.front() + (o.value == Value::None ? "" : "=");
  } else {
    std::vector<std::string> spelled;
    for (const auto& n : o.names) spelled.push_back(n + (o.value == Value::None ? "" : "="));
    names = sh_quote("(" + join(o.names, " ") + ")") + "{" + join(spelled, ",") + "}";
  }
  std::string label = o.names.front().substr(2);
  return names + sh_quote("[" + zsh_escape(o.help) + "]" + zsh_value(o, label));
}

std::string zsh_script(const std::vector<CommandModel>& commands) {
  std::ostringstream s;
  s << "#compdef accel-sim\n"
    << header("zsh")
    << "# Install: accel-sim completion zsh > \"${fpath[1]}/_accel-sim\" (or source it after compinit)\n"
       "_accel_sim() {\n"
       "  local curcontext=\"$curcontext\" state line ret=1\n"
       "  local -a commands\n"
       "  commands=(\n";
  for (const auto& c : commands) {
    if (!c.name.empty()) s << "    " << sh_quote(zsh_escape(c.name) + ":" + c.help) << "\n";
  }
  s << "  )\n"
       "  _arguments -C \\\n";
  for (const auto& o : commands.front().options) s << "    " << zsh_spec(o) << " \\\n";
  s << "    '1: :->command' \\\n"
       "    '*:: :->argument' && ret=0\n"
       "  case $state in\n"
       "    command)\n"
       "      _describe -t commands 'accel-sim command' commands && ret=0 ;;\n"
       "    argument)\n"
       "      curcontext=\"${curcontext%:*:*}:accel-sim-$words[1]:\"\n"
       "      case $words[1] in\n";
  for (const auto& c : commands) {
    if (c.name.empty()) continue;
    s << "        " << c.name << ")\n          _arguments";
    for (const auto& o : c.options) s << " \\\n            " << zsh_spec(o);
    if (c.positional) s << " \\\n            " << sh_quote("*" + zsh_value(*c.positional, "argument"));
    s << " && ret=0 ;;\n";
  }
  s << "      esac ;;\n"
       "  esac\n"
       "  return ret\n"
       "}\n"
       "# Autoloaded from $fpath the file is the function's body; sourced, it registers itself.\n"
       "if [[ \"$funcstack[1]\" == \"_accel_sim\" || \"$funcstack[1]\" == \"_accel-sim\" ]]; then\n"
       "  _accel_sim \"$@\"\n"
       "else\n"
       "  compdef _accel_sim accel-sim\n"
       "fi\n";
  return s.str();
}

// fish: one `complete` line per command and option, each under the condition that picks its command.
std::string fish_script(const std::vector<CommandModel>& commands) {
  std::vector<std::string> names;
  for (const auto& c : commands) {
    if (!c.name.empty()) names.push_back(c.name);
  }
  const std::string no_command = fish_quote("not __fish_seen_subcommand_from " + join(names, " "));
  const auto value = [](const OptionModel& o) -> std::string {
    switch (o.value) {
      case Value::Choices:
        return " -x -a " + fish_quote(join(o.choices, " "));
      case Value::Files:
        return " -r -F";
      case Value::Free:
        return " -x";
      case Value::None:
        break;
    }
    return "";
  };
  std::ostringstream s;
  s << header("fish") << "# Install: accel-sim completion fish > ~/.config/fish/completions/accel-sim.fish\n"
    << "complete -c accel-sim -f\n";
  for (const auto& c : commands) {
    if (!c.name.empty())
      s << "complete -c accel-sim -n " << no_command << " -a " << c.name << " -d " << fish_quote(c.help) << "\n";
  }
  for (const auto& c : commands) {
    const std::string when = c.name.empty() ? no_command : fish_quote("__fish_seen_subcommand_from " + c.name);
    for (const auto& o : c.options) {
      s << "complete -c accel-sim -n " << when;
      for (const auto& n : o.names) s << " -l " << n.substr(2);
      s << value(o) << " -d " << fish_quote(o.help) << "\n";
    }
    if (c.positional) {
      // A positional has no option to hang -x/-r on: its choices are plain arguments, its files forced.
      s << "complete -c accel-sim -n " << when
        << (c.positional->value == Value::Choices ? " -a " + fish_quote(join(c.positional->choices, " "))
            : c.positional->value == Value::Files ? std::string(" -F")
                                                  : std::string())
        << "\n";
    }
  }
  return s.str();
}

}  // namespace

std::string completion_script(const CLI::App& app, std::string_view shell) {
  const auto commands = commands_of(app);
  if (shell == "bash") return bash_script(commands);
  if (shell == "zsh") return zsh_script(commands);
  if (shell == "fish") return fish_script(commands);
  throw std::invalid_argument("completion: no script for the shell " + std::string(shell));
}

}  // namespace accel::cli
