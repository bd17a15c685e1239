#!/usr/bin/env bash
# The main job: build patc, print the CUDA C it generates for the thesis's device-level
# reduction, and, when a GPU is present, run it on a million random numbers and check
# its blocks' partial sums against the CPU interpreter's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# A user's build: Release, warnings not errors (PATC_WERROR is set explicitly because
# scripts/test.sh leaves it ON in the same build directory's cache). The build's output
# is kept in a log and shown when it fails, so that a failing build says why.
log=build/demo-build.log
mkdir -p build
if ! { cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPATC_WERROR=OFF &&
       cmake --build build --target patc; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "scripts/demo.sh: the build failed (the output above is in $log)" >&2
  exit 1
fi
./build/cli/patc --emit-cuda examples/reduce_device_naive.rise
if ./build/cli/patc run examples/scale.rise --kernel scale -D n=1 --input random >/dev/null 2>&1; then
  ./build/cli/patc run examples/reduce_device_naive.rise --kernel reduceNaive --input random \
    --check-against-cpu -D n=1000003
else
  echo "(no GPU here: patc run would say why:)"
  ./build/cli/patc run examples/scale.rise --kernel scale -D n=1 --input random || true
fi
