#!/usr/bin/env bash
# fuzz.sh BUILD [N [SEED]]: N random tile shapes and sizes of the device patterns (scans,
# filter, partition, the stable partition's grid, the row scan), each built for the CPU
# emulator and checked against the interpreter as run.sh does. Not a ctest (its cases
# are random); prints each failure and a count. On 2026-11-23, seeds 7 (50 cases) and
# 123 (80 cases): every case passed.
set -u
B=$(cd "${1:?usage: fuzz.sh BUILD [N [SEED]]}" && pwd)
N=${2:-60} SEED=${3:-1}
cd "$(dirname "$0")/../.." || exit 1
RANDOM=$SEED
P=$B/cli/patc F=$B/runtime/fakecuda T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
asan=$(c++ -print-file-name=libasan.so)
export CXX="c++ -fsanitize=address -fno-omit-frame-pointer"
pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }
size() { # a random n, often next to a tile multiple
  local tile=$1 k=$((RANDOM % 40 + 1))
  case $((RANDOM % 3)) in 0) echo $((k * tile)) ;; 1) echo $((k * tile + 1)) ;; 2) echo $(( (RANDOM * 7 + RANDOM) % 150000 + 1 )) ;; esac
}
pass=0 fail=0 rej=0
for ((c = 0; c < N; c++)); do
  nt=$(pick 32 64 96 128 160 192 256 384 512 1024)
  case $((RANDOM % 6)) in
  0|1) f=scan_device.rise k=$(pick inclSumF32 exclSumF32 inclSumI32 exclSumI32) ipt=$((RANDOM % 32 + 1)) in="--input random"
       opts="-D nt=$nt -D ipt=$ipt"; [ $((RANDOM % 3)) = 0 ] && opts="$opts --min-blocks $(pick 1 2 3 4)";;
  2) f=filter.rise k=$(pick filterGtF32 filterGtI32) ipt=$(( (RANDOM % 8 + 1) * 4 )) opts="-D nt=$nt -D ipt=$ipt"
     in="--input value:$(pick 0.5 0.01 0.99 49 1 98) --input random";;
  3) f=partition.rise k=$(pick partitionGtF32 partitionGtI32 partitionLtF32) ipt=$(( (RANDOM % 8 + 1) * 4 ))
     [ $k = partitionLtF32 ] && ipt=$((RANDOM % 32 + 1))
     opts="-D nt=$nt -D ipt=$ipt" in="--input value:$(pick 0.5 0.01 49) --input random";;
  4) f=partition.rise k=$(pick partitionStableGtF32 partitionStableGtI32) ipt=$(( (RANDOM % 8 + 1) * 4 ))
     opts="-D nt=$nt -D ipt=$ipt -D g=$((RANDOM % 600 + 1))" in="--input value:$(pick 0.5 49) --input random";;
  5) f=scan_rows.rise k=$(pick inclSumF32 exclSumI32) ipt=$((RANDOM % 32 + 1))
     opts="-D nt=$nt -D ipt=$ipt -D r=$((RANDOM % 300 + 1))" in="--input random";;
  esac
  case $k in *I32) in=${in//value:0.5/value:49}; in=${in//value:0.01/value:1}; in=${in//value:0.99/value:98} ;;
             *F32) in=${in//value:49/value:0.5}; in=${in//value:98/value:0.99}; in=${in//value:1 /value:0.01 } ;; esac
  n=$(size $((nt * ipt)))
  so=$T/k.so
  if ! bash tests/emu/build.sh "$P" $so examples/$f --kernel $k $opts -D n=$n 2>$T/err; then
    rej=$((rej + 1)); echo "rejected: $f $k $opts -D n=$n: $(grep -m1 -E 'error' $T/err | cut -c1-160)"; continue
  fi
  if timeout 300 env FAKECUDA_EMULATE=$so LD_LIBRARY_PATH=$F LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0 \
      "$P" run examples/$f --kernel $k $in $opts -D n=$n --check-against-cpu >$T/out 2>&1; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: $f $k $in $opts -D n=$n"; grep -E "ERROR|SUMMARY|cuda_emu|error|FAIL" $T/out | head -4 | sed 's/^/    /'
  fi
done
echo "pass $pass fail $fail rejected $rej"
