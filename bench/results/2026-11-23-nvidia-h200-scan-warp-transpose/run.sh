set -u
export LD_LIBRARY_PATH=$PWD/build/extra-libs
P=build/cli/patc
T=$(mktemp -d)
gen() { # nt ipt n
  $P --emit-cuda examples/scan_device.rise -D nt=$1 -D ipt=$2 -D n=$3 > $T/orig_$1_$2_$3.cu 2>/dev/null
  python3 bench/results/2026-11-23-nvidia-h200-scan-warp-transpose/edit.py $T/orig_$1_$2_$3.cu $1 $2 $T/warp_$1_$2_$3.cu
}
for s in "512 25" "256 25"; do set -- $s
  for n in 1048583 16777219; do gen $1 $2 $n
    echo "check warp $1x$2 n=$n incl: $($P run examples/scan_device.rise --kernel inclSumF32 -D nt=$1 -D ipt=$2 -D n=$n --input random --cuda $T/warp_$1_$2_$n.cu --check-against-cpu 2>&1 | tail -1)"
    echo "check warp $1x$2 n=$n exclI32: $($P run examples/scan_device.rise --kernel exclSumI32 -D nt=$1 -D ipt=$2 -D n=$n --input random --cuda $T/warp_$1_$2_$n.cu --check-against-cpu 2>&1 | tail -1)"
  done
done
gen 256 25 100003
echo "racecheck: $(compute-sanitizer --tool racecheck $P run examples/scan_device.rise --kernel inclSumF32 -D nt=256 -D ipt=25 -D n=100003 --input random --cuda $T/warp_256_25_100003.cu 2>&1 | grep -E 'RACECHECK SUMMARY|rror' | head -3)"
echo "synccheck: $(compute-sanitizer --tool synccheck $P run examples/scan_device.rise --kernel inclSumF32 -D nt=256 -D ipt=25 -D n=100003 --input random --cuda $T/warp_256_25_100003.cu 2>&1 | grep -E 'ERROR SUMMARY')"
for n in 268435456 67108864 16777216; do
 for s in "512 25" "256 25" "128 25" "256 31" "128 31" "512 17"; do set -- $s; gen $1 $2 $n
  for v in orig warp; do
   echo "$v $1x$2 n=$n: $($P run examples/scan_device.rise --kernel inclSumF32 -D nt=$1 -D ipt=$2 -D n=$n --input random --cuda $T/${v}_$1_$2_$n.cu --time --repeat 30 2>&1 | grep -i 'kernel time\|error' | sed 's/kernel time: //; s/ ms (median of.*/ ms/' | tr '\n' ' ')"
  done
 done
done
