#!/bin/bash
# A/B of __launch_bounds__ min blocks on the generated device scan (patc run --time, median of R)
P=build/cli/patc; R=40; D=${D:-exp_lb}
for rep in 1 2; do
for n in 16777216 67108864 268435456; do
  for k in inclSumF32 exclSumI32; do
    for v in s512 s512lb; do
      t=$($P run examples/scan_device.rise --kernel $k -D nt=512 -D ipt=25 -D n=$n --cuda $D/${v}_$n.cu --input random --time --repeat $R 2>&1 | grep -m1 "kernel time")
      echo "$rep $n $k $v: $t"
    done
    if [ $n != 16777216 ]; then for v in s256 s256lb; do
      t=$($P run examples/scan_device.rise --kernel $k -D nt=256 -D ipt=25 -D n=$n --cuda $D/${v}_$n.cu --input random --time --repeat $R 2>&1 | grep -m1 "kernel time")
      echo "$rep $n $k $v: $t"
    done; fi
  done
done
done
# correctness of the lb variants
for n in 16777216; do $P run examples/scan_device.rise --kernel inclSumF32 -D nt=512 -D ipt=25 -D n=$n --cuda $D/s512lb_$n.cu --input random --check-against-cpu 2>&1 | tail -2; done
