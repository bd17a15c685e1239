#!/usr/bin/env bash
# Every CMake build type with gcc and clang, with and without link-time optimisation
# (CMAKE_INTERPROCEDURAL_OPTIMIZATION), each built whole (library, CLI, tests, examples)
# with warnings as errors, so that no compiler or optimisation level a user picks fails
# to build or warns. Each cell builds from scratch in ${TMPDIR:-/tmp}/patc-matrix.
#   scripts/build_matrix.sh            the whole matrix (16 builds)
#   scripts/build_matrix.sh gcc:Release:OFF clang:MinSizeRel:ON ...   the named cells
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
root=${TMPDIR:-/tmp}/patc-matrix
mkdir -p "$root"
cells=("$@")
if ((${#cells[@]} == 0)); then
  for cc in gcc clang; do
    for type in Debug Release RelWithDebInfo MinSizeRel; do
      for ipo in OFF ON; do cells+=("$cc:$type:$ipo"); done
    done
  done
fi
jobs=$(nproc 2>/dev/null || echo 2)
# one cubin cache for every cell (the embedded cubins' texts are the same whatever the C
# compiler): $PATC_EMBED_CACHE when set (.ci/run gives the test build's), else the root's
cache=${PATC_EMBED_CACHE:-$root/embed-cache}
failed=0 passed=0
for cell in "${cells[@]}"; do
  IFS=: read -r cc type ipo <<<"$cell"
  dir=$root/$cc-$type-ipo$ipo
  log=$dir.log
  rm -rf "$dir" # from scratch: a directory left by another checkout or option set must not decide
  if { cmake -S . -B "$dir" -G Ninja -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE="$type" \
         -DCMAKE_INTERPROCEDURAL_OPTIMIZATION="$ipo" -DPATC_WERROR=ON -DPATC_EMBED_CACHE="$cache" &&
       cmake --build "$dir" -j "$jobs"; } >"$log" 2>&1; then
    echo "ok      $cell"
    passed=$((passed + 1))
  else
    echo "FAILED  $cell (log: $log)"
    grep -E 'error|warning|undefined reference' "$log" | head -20 || true
    failed=$((failed + 1))
  fi
done
echo "build_matrix: $passed passed, $failed failed"
((failed == 0))
