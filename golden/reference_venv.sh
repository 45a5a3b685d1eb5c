# Sourced by golden/record and golden/setup-reference: where the reference environment lives, one rule for
# both (and the one `accel-sim compare --reference` applies). $1 is the folder holding golden/.
#   $ACCEL_SIM_REFERENCE_VENV when set;
#   <checkout>/build/reference-venv in a source checkout (it holds CMakeLists.txt);
#   ${XDG_CACHE_HOME:-~/.cache}/accel-sim/reference-venv in an installed tree (share/accel-sim/), which may
#   not be writable by the user who runs it.
reference_venv() {
  if [ -n "${ACCEL_SIM_REFERENCE_VENV:-}" ]; then
    printf '%s\n' "$ACCEL_SIM_REFERENCE_VENV"
  elif [ -f "$1/CMakeLists.txt" ]; then
    printf '%s\n' "$1/build/reference-venv"
  else
    printf '%s\n' "${XDG_CACHE_HOME:-$HOME/.cache}/accel-sim/reference-venv"
  fi
}
