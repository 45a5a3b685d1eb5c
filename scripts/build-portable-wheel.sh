#!/usr/bin/env bash
# Issue 49: a wheel anyone can install, built from this machine's packages and PyPI only (no container image).
#
# The C++ is compiled by the `ziglang` toolchain from PyPI for x86_64 glibc 2.28 (zig's own libc++ linked in, so
# the executable needs nothing but an old glibc), with yaml-cpp from its Debian source tarball (Debian's
# libyaml-cpp.a is built against libstdc++) and the header-only CLI11 and nlohmann-json from Debian. The wheel holds
# no module compiled for one CPython: the package runs that one `accel-sim` executable (accelerate_sim/_core_exe.py),
# so one `py3-none-manylinux_2_28_x86_64` wheel serves every Python 3.9+. `auditwheel show` checks the tag.
#   scripts/build-portable-wheel.sh [OUT_DIR]      # default build/portable; the wheel lands in OUT_DIR/dist
# Not part of the CMake build; tests/python/portable_wheel_test.sh (ctest label `wheel`) runs it and installs the
# result. The rank executable (`accel-sim launch`, `run`) links LibTorch and is not in this wheel.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/build/portable}" && cd "${1:-$root/build/portable}" && pwd)
jobs=$(nproc)
version=$(sed -n 's/^project(accel_sim VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")

# Tools, pinned: the compiler and the wheel tooling come from PyPI.
tools=$out/tools
if [ ! -x "$tools/bin/auditwheel" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q ziglang==0.17.1 wheel==0.45.1 auditwheel==6.4.2
fi
zig() { "$tools/bin/python" -m ziglang "$@"; }
target=x86_64-linux-gnu.2.28

# yaml-cpp 0.7.0 (Debian 12's version) from Debian's source tarball, checked.
yaml=$out/yaml-cpp-yaml-cpp-0.7.0
if [ ! -d "$yaml" ]; then
  tarball=yaml-cpp_0.7.0+dfsg.orig.tar.xz
  curl -fsSL -o "$out/$tarball" "http://deb.debian.org/debian/pool/main/y/yaml-cpp/$tarball"
  echo "dc63708605404e0b963e0ca3a9619d1c8270eda2839603e6fa0384e5e51e5312  $out/$tarball" | sha256sum -c --quiet
  tar -C "$out" -xf "$out/$tarball"
fi
# Only the header-only libraries of /usr/include: the rest of it is this machine's glibc, which must not be seen.
inc=$out/include
mkdir -p "$inc"
for d in CLI nlohmann; do
  [ -d "/usr/include/$d" ] || { echo "build-portable-wheel: /usr/include/$d missing (scripts/setup.sh installs it)" >&2; exit 2; }
  ln -sfn "/usr/include/$d" "$inc/$d"
done

# The sources of the accel-sim executable (CMake's accel_core ... accel_cli), and the docs pages it embeds.
mkdir -p "$out/generated"
cmake -DDOCS="$root/docs" -DOUT="$out/generated/docs_pages.cpp" -P "$root/cmake/embed_docs.cmake"
objects=$out/obj
mkdir -p "$objects"
compile() {  # SOURCE OBJECT FLAGS...: recompiled when the source is newer than the object
  local src=$1 obj=$2
  shift 2
  [ "$obj" -nt "$src" ] && return 0
  zig c++ -target "$target" -O2 -DNDEBUG "$@" -c "$src" -o "$obj"
}
export -f compile zig
export tools target
{
  for src in "$root"/{core,trace,sim,analysis,reports,cli}/*.cpp "$out/generated/docs_pages.cpp"; do
    printf '%s\0%s\0' "$src" "$objects/$(basename "$(dirname "$src")")_$(basename "$src" .cpp).o"
  done
} | xargs -0 -n 2 -P "$jobs" bash -c 'compile "$0" "$1" -std=c++20 -Wno-deprecated-literal-operator \
      -DACCEL_SIM_VERSION=\"'"$version"'\" -I"'"$root"'" -I"'"$inc"'" -I"'"$yaml"'/include"'
for src in "$yaml"/src/*.cpp; do
  printf '%s\0%s\0' "$src" "$objects/yaml_$(basename "$src" .cpp).o"
done | xargs -0 -n 2 -P "$jobs" bash -c 'compile "$0" "$1" -std=c++17 -I"'"$yaml"'/include" -I"'"$yaml"'/src"'
exe=$out/accel-sim
zig c++ -target "$target" -O2 -s -o "$exe" "$objects"/*.o

# The wheel: the Python package (without a compiled module), the executable inside it, the shims.
stage=$out/stage
rm -rf "$stage" && mkdir -p "$stage/accelerate_sim/_bin"
cp "$root"/python/accelerate_sim/*.py "$stage/accelerate_sim/"
cp "$root/golden/reference/shims.py" "$stage/accelerate_sim/torch113_shims.py"
cp "$exe" "$stage/accelerate_sim/_bin/accel-sim"
info=$stage/accelerate_sim-$version.dist-info
mkdir -p "$info"
cp "$root/LICENSE" "$info/LICENSE"
{
  echo "Metadata-Version: 2.1"
  echo "Name: accelerate-sim"
  echo "Version: $version"
  sed -n 's/^description = "\(.*\)"$/Summary: \1/p' "$root/pyproject.toml"
  echo "License: Apache-2.0"
  echo "Requires-Python: >=3.9"
  echo "Provides-Extra: test"
  echo "Requires-Dist: pytest; extra == \"test\""
  echo "Description-Content-Type: text/markdown"
  echo
  cat "$root/README.md"
} >"$info/METADATA"
printf 'Wheel-Version: 1.0\nGenerator: accel-sim scripts/build-portable-wheel.sh\nRoot-Is-Purelib: false\nTag: py3-none-manylinux_2_28_x86_64\n' \
  >"$info/WHEEL"
printf '[console_scripts]\naccel-sim = accelerate_sim._core_exe:main\n\n[pytest11]\naccelerate_sim = accelerate_sim.pytest_plugin\n' \
  >"$info/entry_points.txt"
mkdir -p "$out/dist"
rm -f "$out"/dist/accelerate_sim-*.whl
"$tools/bin/python" -m wheel pack "$stage" -d "$out/dist" >/dev/null
wheel=$(ls "$out"/dist/accelerate_sim-*.whl)
"$tools/bin/auditwheel" show "$wheel"
echo "build-portable-wheel: $wheel ($(stat -c %s "$wheel") bytes)"
