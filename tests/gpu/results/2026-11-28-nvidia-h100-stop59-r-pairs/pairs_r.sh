# section r's sorts of pairs (every case in all.sh r that carries values), on the GPU, 8 at a time
set -u
cc -std=c11 -O2 -Iruntime -o /tmp/sc tests/gpu/sort_check.c build/runtime/libpatrt.a -ldl -lm -lpthread || exit 3
export LD_LIBRARY_PATH=$PWD/build/extra-libs
{
for f in "--pairs=u32 f32" "--desc --pairs=u32 f32"; do
  for n in 1 31 1000 2049 4096 4097 5000 5121 1048583; do for k in uniform few sorted; do echo "$f $n $k"; done; done
  for n in 33 4097 1048583; do for k in reverse special equal; do echo "$f $n $k"; done; done
  echo "$f many 1000 100000"
done
for f in "--pairs=f32 u32" "--pairs=i32 i32" "--pairs=u32 i32" "--pairs=i32 f32" "--desc --pairs=i32 u32"; do
  for n in 1 31 1000 4097 1048583; do for k in uniform few special equal; do echo "$f $n $k"; done; done
  echo "$f many 200 100000"
done
for f in "--pairs=u64 f64" "--pairs=u32 u64" "--pairs=f64 i32" "--desc --pairs=u64 i64" "--bits=4:20 --pairs=u32 u32" "--bits=0:40 --pairs=u64 i64" "--digit=11 --pairs=u32 f32"; do
  for n in 1 31 1000 4097 9001 1048583; do for k in uniform few special; do echo "$f $n $k"; done; done
  echo "$f many 100 100000"
done
for f in "--portion=65536 --pairs=u32 f32" "--portion=12289 --digit=11 --pairs=u64 i32"; do
  for n in 9001 100003 1048583; do for k in uniform few; do echo "$f $n $k"; done; done
  echo "$f many 100 300000"
done
for f in "--pairs=u32 f32" "--desc --pairs=i32 u32"; do
  for n in 2047 2048 2049 4095 4096 4097 8191 8192 8193; do for k in uniform special equal few; do echo "$f $n $k"; done; done
done
} > /tmp/cases
xargs -P 8 -I{} sh -c 'o=$(/tmp/sc {} 2>&1 | tail -1); echo "{}: $o"' < /tmp/cases > /tmp/res.txt
wc -l < /tmp/cases; grep -c " 0 failed" /tmp/res.txt; grep -v " 0 failed" /tmp/res.txt | head
cp /tmp/res.txt $OUT/pairs_r.txt
