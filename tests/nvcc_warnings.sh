#!/usr/bin/env bash
# Every example's generated CUDA compiles with nvcc without a warning (issue 33, item 7c):
# a CUDA programmer compiling patc's output with -Werror all-warnings gets no error.
# Usage: tests/nvcc_warnings.sh PATC [NVCC]   (run from the repository root)
# The kernels are generated afresh (examples/*.rise, tests/thesis/*.rise and the
# quicksort's small sort, with each file's golden-args), each compiled for sm_90 as it is
# emitted (the 64-bit build of a kernel sized at launch; multisplit.rise and radixsort.rise
# for sm_80 too, below). The -DPATC_INDEX32 build, which
# only the runtime makes (through NVRTC, warnings not errors), is compiled by test_codegen
# (examples_compile_with_nvrtc, both builds, through NVRTC's front end): compiling it here
# too took half of this test's 190 s for text that differs only in patc_int's typedef.
# This test is where NVVM and ptxas run on these files' 64-bit builds (test_codegen stops
# after the front end for them). Each file is compiled
# to a cubin (-cubin: the device compilation whole, front end, NVVM and ptxas, every
# warning an error) without the host compilation of `-c`, which compiles only the launch
# stubs nvcc writes and took 1.9 of a small file's 2.4 s.
# Exits 77 (ctest: skipped) when nvcc is missing.
set -u
patc=$1
nvcc=${2:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "nvcc not found: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for f in examples/*.rise tests/thesis/*.rise examples/quicksort/sort_small.rise; do
  cu=$tmp/$(echo "$f" | tr / _).cu
  # shellcheck disable=SC2046
  if ! "$patc" --emit-cuda $(sed -n '1s/^-- golden-args: //p' "$f") "$f" >"$cu"; then
    echo "FAIL $f: patc --emit-cuda failed"; fail=$((fail+1)); continue
  fi
  if out=$("$nvcc" -arch=sm_90 -cubin -Werror all-warnings -o "$tmp/k.cubin" "$cu" 2>&1); then
    pass=$((pass+1))
  else
    echo "FAIL $f:"; echo "$out" | head -20; fail=$((fail+1))
  fi
done
# patc's kernels but the pipe's run on other architectures too (docs/api.md): multisplit's
# prefetch of the tiles ahead (patc_prefetch_l2, sm_90's bulk prefetch) does nothing
# there, so the sort's kernels compile for sm_80 as they are
for f in examples/multisplit.rise examples/radixsort.rise; do
  cu=$tmp/sm80_$(basename "$f").cu
  # shellcheck disable=SC2046
  if "$patc" --emit-cuda $(sed -n '1s/^-- golden-args: //p' "$f") "$f" >"$cu" &&
     out=$("$nvcc" -arch=sm_80 -cubin -Werror all-warnings -o "$tmp/k.cubin" "$cu" 2>&1); then
    pass=$((pass+1))
  else
    echo "FAIL $f for sm_80:"; echo "${out:-}" | head -20; fail=$((fail+1))
  fi
done
echo "nvcc_warnings: $pass compiled clean, $fail failed"
[ "$fail" = 0 ]
