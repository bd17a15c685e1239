#!/bin/bash
# prepared at stop 61 (not run yet): libpatrt as on main at 2b4faa1 (sk without PATC_XSRC: f6089c5's
# library, the histogram key by
# key) against branch hist-vec2 (sk_v2: sortHistScanV, two trips a step, two 16-byte loads in
# flight a thread), and, through the XSRC hook (sk, f6089c5 + hooks.patch), the hand-written
# h3 and the generated one-load form with "#pragma unroll 2" (hv2); the f32 pass
# (sortPassB2, 512 x 24 at three blocks) without the full tile's scatter bound test (s1)
# or without its ranking's two __syncwarp (s2: timing only, may rank wrongly: see
# "outputs equal"); h3 with s1 (h3s1). xv/*.cu are f32 sorters' texts: f32 only. A process each,
# interleaved, median us of 21 sorts at 2^28. Copy /work/exp61 to bench/tmp/x61 first
# (sk and sk_v2, 5.4 MB: mind the 64 MiB tree), run from the repository root, OUT set.
cd "$(dirname "$0")/../../.."
D=bench/tmp/x61
N=268435456
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
one() { # VARIANT TYPE INPUT N REPS
  case $1 in
    main) $D/sk --root $PWD $2 $3 $4 $5 ;;
    v2) $D/sk_v2 --root $PWD $2 $3 $4 $5 ;;
    h3|hv2) PATC_XSRC="sortHistScan=$PWD/$D/xv/$1.cu" $D/sk --root $PWD $2 $3 $4 $5 ;;
    s1|s2) PATC_XSRC="sortPassB2=$PWD/$D/xv/$1.cu" $D/sk --root $PWD $2 $3 $4 $5 ;;
    h3s1) PATC_XSRC="sortHistScan=$PWD/$D/xv/h3.cu;sortPassB2=$PWD/$D/xv/s1.cu" $D/sk --root $PWD $2 $3 $4 $5 ;;
  esac 2>/dev/null | tail -1
}
for v in main v2 h3 hv2 s1 s2 h3s1; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform"; do
    for v in main v2 h3 hv2 s1 s2 h3s1; do echo "$r $v $(one $v $c $N 21)"; done
  done
  for v in main v2; do echo "$r $v $(one $v u32 uniform $N 21)"; done
done 2>&1 | tee $OUT/ab2.txt
