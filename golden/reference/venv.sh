# Sourced by golden/record and golden/refresh: picks the reference environment and takes `--torch 1.13|2` (or
# `--torch=…`) out of the arguments. Sets `venv`, `setup` (the command that makes it) and `args` (the rest).
# 1.13 (default): golden/reference_venv.sh's rule ($ACCEL_SIM_REFERENCE_VENV, build/reference-venv in a checkout,
# the user's cache in an installed tree); 2: $ACCEL_SIM_REFERENCE_VENV_TORCH2 or
# build/reference-venv-torch2.
pick_reference_venv() {
  local root="$1" torch="1.13"
  shift
  args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --torch) torch="${2:-}"; shift 2 || shift ;;
      --torch=*) torch="${1#--torch=}"; shift ;;
      *) args+=("$1"); shift ;;
    esac
  done
  case "$torch" in
    1.13) . "$root/golden/reference_venv.sh"; venv="$(reference_venv "$root")"; setup="golden/setup-reference" ;;
    2) venv="${ACCEL_SIM_REFERENCE_VENV_TORCH2:-$root/build/reference-venv-torch2}"; setup="golden/setup-reference --torch 2" ;;
    *) echo "--torch: 1.13 or 2, got '$torch'" >&2; exit 2 ;;
  esac
  if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/VERSIONS.json" ]; then
    echo "reference environment missing: run $setup (looked in $venv)" >&2
    exit 2
  fi
}
