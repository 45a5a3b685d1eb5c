#!/usr/bin/env bash
# The real-rank driver must build without NCCL too (WITH_NCCL=OFF): configure a second build folder
# with the option off, build accel-sim-rank there, and check that it links no NCCL and says so when
# asked for the nccl backend. The folder is kept, so a rerun only rebuilds what changed.
set -u
src=$1
out=$2
cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Release -DWITH_NCCL=OFF -DACCEL_SIM_TESTS=OFF > "$out.configure.log" 2>&1 ||
  { echo "FAIL: configure with WITH_NCCL=OFF"; tail -20 "$out.configure.log"; exit 1; }
grep -q "accel-sim-rank: NCCL transport OFF" "$out.configure.log" || { echo "FAIL: NCCL transport not reported OFF"; exit 1; }
cmake --build "$out" --target accel-sim-rank -j 2 > "$out.build.log" 2>&1 ||
  { echo "FAIL: build with WITH_NCCL=OFF"; tail -30 "$out.build.log"; exit 1; }
if grep -q "warning:" "$out.build.log"; then echo "FAIL: warnings"; grep "warning:" "$out.build.log" | head; exit 1; fi
if ldd "$out/accel-sim-rank" | grep -q -E "libnccl|libcudart"; then echo "FAIL: links NCCL/CUDA"; exit 1; fi
msg=$(RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29999 \
  "$out/accel-sim-rank" --backend nccl --config-json '{"dataset_len": 4, "num_processes": 1}' 2>&1)
echo "$msg" | grep -q -i "no NCCL" || { echo "FAIL: --backend nccl without NCCL said: $msg"; exit 1; }
echo "PASS build without NCCL: accel-sim-rank links no NCCL and refuses --backend nccl"
