#!/bin/bash
# examples/multisplit.rise (all.sh section m's cases) with the new multisplit, and its sanitizers
cd "$(dirname "$0")/../.."
P=$PWD/build/cli/patc
nvidia-smi --query-gpu=name --format=csv,noheader
{
for n in 1 31 33 1000 4097 1048583 16777219; do
  for k in msU32 msWide; do echo "$k $n --input random:0:65535"; done
  for k in msI32 msF32 msU64 msI64 msF64 msOne; do
    [ $n = 16777219 ] && [ $k != msF32 ] && [ $k != msI32 ] && continue
    echo "$k $n --input random"
  done
done
} | xargs -P 8 -L 1 sh -c 'r=$('"$P"' run examples/multisplit.rise --kernel $0 $2 $3 --check-against-cpu -D n=$1 -D g=264 2>&1 | tail -1); echo "$0 $1: $r"' > $OUT/m.txt 2>&1
echo "m: $(grep -c ': ok' $OUT/m.txt) ok of $(wc -l < $OUT/m.txt)"; grep -v ': ok' $OUT/m.txt | head
for tool in memcheck racecheck synccheck; do
  for a in "msU32 4097" "msU32 20011" "msI32 20011" "msU64 20011" "msWide 20011"; do
    set -- $a
    echo "== $tool $a: $(compute-sanitizer --tool $tool $P run examples/multisplit.rise --kernel $1 --input random:0:65535 --check-against-cpu -D n=$2 -D g=7 2>&1 | grep -E 'SUMMARY|tolerance' | tr '\n' ' ')"
  done
done | tee $OUT/san.txt
