#!/usr/bin/env bash
# The whole test suite: a normal build and an AddressSanitizer+UBSan build, each
# running every ctest (Check suites per module, golden files, NVRTC compile checks,
# runtime and cache tests, valgrind on the runtime, install + find_package). GPU tests
# report themselves skipped where there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
(cd build && ctest -j "$jobs" --output-on-failure)
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPATC_SANITIZE=ON >/dev/null
cmake --build build-asan -j "$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest -j "$jobs" --output-on-failure)
