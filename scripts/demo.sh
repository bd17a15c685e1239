#!/usr/bin/env bash
# The main job: build patc, print the CUDA C it generates for the thesis's device-level
# reduction, and, when a GPU is present, run it on a million random numbers and check
# the sum against the CPU interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target patc >/dev/null
./build/cli/patc --emit-cuda examples/reduce_device_naive.rise
if ./build/cli/patc run examples/scale.rise --kernel scale -D n=1 --input random >/dev/null 2>&1; then
  ./build/cli/patc run examples/reduce_device_naive.rise --kernel reduceNaive --input random \
    --check-against-cpu -D n=1000003
else
  echo "(no GPU here: patc run would say why:)"
  ./build/cli/patc run examples/scale.rise --kernel scale -D n=1 --input random || true
fi
