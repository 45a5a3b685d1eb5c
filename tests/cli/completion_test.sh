#!/usr/bin/env bash
# Issue 50: `accel-sim completion bash|zsh|fish` and `accel-sim help --man` are written from the parser, so they
# name every command and every option that --help lists. Each installed shell reads its script without a syntax
# error; bash and fish complete real command lines with it (zsh is checked for registering its function, since
# driving its completion needs a terminal). The man page renders without a groff warning. A shell that is not
# installed is reported as SKIP and counts neither way; bash, which runs this script, always is.
set -u
bin=$1
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# What the scripts must name, read from --help: the commands, and each command's long options (first spelling).
commands=$("$bin" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ "$(echo "$commands" | wc -w)" -ge 8 ] && ok || bad "--help lists $(echo "$commands" | wc -w) commands: $commands"
long_options() {  # the long options of `accel-sim [COMMAND] --help`
  "$bin" "$@" --help | grep -oE '^  (-[a-zA-Z],)?--[a-zA-Z0-9_-]+' | sed -E 's/^  (-[a-zA-Z],)?//' | sort -u
}
long_options >"$tmp/opts-"
for c in $commands; do long_options "$c" >"$tmp/opts-$c"; done
[ "$(wc -l <"$tmp/opts-")" -ge 80 ] && ok || bad "the what-if's --help lists $(wc -l <"$tmp/opts-") options"
[ "$(wc -l <"$tmp/opts-check")" -ge 50 ] && ok || bad "check --help lists $(wc -l <"$tmp/opts-check") options"

for shell in bash zsh fish; do
  if ! command -v "$shell" >/dev/null; then
    echo "SKIP $shell: not installed, its script is not tested"
    continue
  fi
  script=$tmp/accel-sim.$shell
  if ! "$bin" completion "$shell" >"$script"; then bad "completion $shell: exit $?"; continue; fi
  if "$shell" -n "$script"; then ok; else bad "$shell -n: the script does not parse"; fi
  # Every command, and every long option of every command, as the shell spells an option name.
  missing=0
  for c in $commands; do grep -qw -- "$c" "$script" || { bad "$shell: command $c missing"; missing=1; }; done
  for f in "$tmp"/opts-*; do
    while read -r option; do
      case $shell in
        fish) pattern=" -l ${option#--}( |$)" ;;
        *) pattern="(^|[ \"'{(,|])${option}([ =\"'\\[,|)]|$)" ;;
      esac
      grep -qE -- "$pattern" "$script" || { bad "$shell: ${f##*/opts-} option $option missing"; missing=1; }
    done <"$f"
  done
  [ "$missing" -eq 0 ] && ok
  echo "tested $shell ($("$shell" --version 2>&1 | head -1))"
done

# bash: source the script and call its completion function on command lines, as readline would.
complete_bash() {  # words... (the last is the one being completed): prints COMPREPLY, one per line
  bash -c '
    source "$1"; shift
    fn=$(complete -p accel-sim | sed -E "s/.*-F ([^ ]+).*/\1/")
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
    "$fn" accel-sim "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$tmp/accel-sim.bash" "$@"
}
expect_bash() {  # name wanted-word words...: COMPREPLY holds wanted-word
  local name=$1 want=$2
  shift 2
  local got
  got=$(complete_bash "$@")
  if printf '%s\n' "$got" | grep -qxF -- "$want"; then ok; else bad "bash $name: '$*' completes to [$(echo $got)], wanted $want"; fi
}
expect_bash_only() {  # name wanted-words words...: COMPREPLY is exactly these (space-separated, sorted)
  local name=$1 want=$2
  shift 2
  local got
  got=$(complete_bash "$@" | sort | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$want" ] && ok || bad "bash $name: '$*' completes to [$got], wanted [$want]"
}
expect_bash_only "a command" "check" accel-sim che
expect_bash "an option of check" --require accel-sim check --re
expect_bash "an option of check" --recorded accel-sim check --re
expect_bash "a what-if option" --dataset-len accel-sim --ranks 4 --data
expect_bash_only "a choice" "hf-iterable hf-map iterable map" accel-sim --dataset ""
expect_bash_only "a choice after =" "iterable" accel-sim check --dataset = it
expect_bash_only "a subcommand's own choice" "gloo nccl" accel-sim launch --backend ""
expect_bash_only "the shells" "bash fish zsh" accel-sim completion ""
expect_bash "a help topic" requirements accel-sim help req
expect_bash_only "a number completes to nothing" "" accel-sim --ranks ""
mkdir -p "$tmp/traces" && touch "$tmp/traces/expected.json"
expect_bash "a file argument" "$tmp/traces/expected.json" accel-sim diff "$tmp/traces/exp"
expect_bash "a file option" "$tmp/traces/expected.json" accel-sim check --config "$tmp/traces/exp"
# A command's options are its own: diff has no --dataset-len, the what-if has no --golden.
expect_bash_only "diff's options" "--recorded" accel-sim diff --rec
expect_bash_only "no check option in the what-if" "" accel-sim --gold

# fish: `complete -C` completes a command line with the loaded script.
if command -v fish >/dev/null; then
  expect_fish() {  # name wanted-word command-line
    local got
    got=$(fish -c "source '$tmp/accel-sim.fish'; complete -C'$3'" | cut -f1)
    if printf '%s\n' "$got" | grep -qxF -- "$2"; then ok; else bad "fish $1: '$3' completes to [$(echo $got)], wanted $2"; fi
  }
  expect_fish "a command" check "accel-sim che"
  expect_fish "an option of check" --require "accel-sim check --re"
  expect_fish "a choice" iterable "accel-sim --dataset "
  expect_fish "the shells" zsh "accel-sim completion "
fi
# zsh: sourced after compinit, the script registers its function for accel-sim.
if command -v zsh >/dev/null; then
  got=$(cd "$tmp" && zsh -f -c "autoload -U compinit && compinit -u -D; source '$tmp/accel-sim.zsh'; print -r -- \${_comps[accel-sim]}" 2>&1)
  [ "$got" = "_accel_sim" ] && ok || bad "zsh: the script registers [$got] for accel-sim"
fi

# Bad input: another shell names the argument and the shells there are, exit 2; no shell is exit 2 too.
exits "completion tcsh" 2 "SHELL: tcsh not in {bash,zsh,fish}" "$bin" completion tcsh
exits "completion without a shell" 2 "SHELL is required" "$bin" completion

# The man page: roff with every command and the what-if's options, rendered without warnings.
man=$tmp/accel-sim.1
if "$bin" help --man >"$man"; then ok; else bad "help --man: exit $?"; fi
for section in '^\.TH ACCEL\\-SIM 1' '^\.SH NAME' '^\.SH SYNOPSIS' '^\.SH DESCRIPTION' '^\.SH OPTIONS' \
  '^\.SH COMMANDS' '^\.SH EXIT STATUS' '^accel\\-sim \\- '; do
  grep -q -- "$section" "$man" && ok || bad "man page: no line matching $section"
done
for c in $commands; do
  grep -qF ".SS \"accel\\-sim $c\"" "$man" && ok || bad "man page: command $c has no section"
done
while read -r option; do
  grep -qF "\\fB${option//-/\\-}\\fR" "$man" || { bad "man page: option $option missing"; break; }
done <"$tmp/opts-check"
for code in 0 1 2 3 70; do grep -qx ".B $code" "$man" && ok || bad "man page: exit status $code missing"; done
exits "help --man with a topic" 2 "give no TOPIC" "$bin" help --man check
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
  [ -z "$warnings" ] && ok || bad "groff warns: $(echo "$warnings" | head -3)"
  rendered=$(groff -man -Tutf8 "$man" 2>/dev/null | sed 's/.\x08//g')
  echo "$rendered" | grep -q "^EXIT STATUS" && ok || bad "groff renders no EXIT STATUS heading"
  echo "$rendered" | grep -qF -- "--require" && ok || bad "groff renders no --require (a \\- lost?)"
else
  echo "SKIP groff: not installed, the man page is checked as text only"
fi

echo "completion: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
