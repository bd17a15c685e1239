#!/bin/bash
# stop 62: hist-vec2's library (sk_v2, with its own patterns in r2/) against main (sk), the
# hand-written h3 histogram, and hand-edited f32 passes: e1 (a warp whose 32 keys share a digit
# counts with one atomic and skips the ranking's ballots; the flag kept from count to rank),
# e2 (the ranking's skip alone, checked where it ranks), e3 (the count's aggregation alone);
# h3e1, h3e2 with h3's histogram. A process each, interleaved, median us of 21 sorts at 2^28.
cd "$(dirname "$0")/../../.."
D=bench/tmp/x61
N=268435456
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
x() { echo "PATC_XSRC=$1"; }
one() { # VARIANT TYPE INPUT N REPS
  local v=$1; shift
  case $v in
    main) $D/sk --root $PWD "$@" ;;
    v2) $D/sk_v2 --root $PWD/$D/r2 "$@" ;;
    h3) PATC_XSRC="sortHistScan=$PWD/$D/xv/h3.cu" $D/sk --root $PWD "$@" ;;
    e1|e2|e3) PATC_XSRC="sortPassB2=$PWD/$D/xv/$v.cu" $D/sk --root $PWD "$@" ;;
    h3e1|h3e2) PATC_XSRC="sortHistScan=$PWD/$D/xv/h3.cu;sortPassB2=$PWD/$D/xv/${v#h3}.cu" $D/sk --root $PWD "$@" ;;
  esac 2>&1 | tail -1
}
V="main v2 h3 e1 e2 e3 h3e1 h3e2"
for v in $V; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform"; do
    for v in $V; do echo "$r $v $(one $v $c $N 21)"; done
  done
  for v in main e1 e2; do echo "$r $v $(one $v f32 few $N 21)"; done
  for v in main v2; do echo "$r $v $(one $v u32 uniform $N 21)"; done
done 2>&1 | tee $OUT/ab3.txt
