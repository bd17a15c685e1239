set -u
# 1. the pairs at the default sizes: main (cur) and this change (new), each with CUB in its process
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
for v in cur new; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v bash bench/sort_run.sh /tmp/sw_$v --types f32+u32 > /dev/null 2>&1
  cp /tmp/sw_$v/sort.csv $OUT/pairs_$v.csv
done
python3 - $OUT <<'PY'
import csv, sys, collections
o = sys.argv[1]
r = {}
for v in ("cur", "new"):
    for row in csv.DictReader(open(f"{o}/pairs_{v}.csv")):
        if row["impl"] == "patc":
            r[(v, row["input"], int(row["n"]))] = (float(row["median_us"]), float(row["ratio_cub_over_patc"]))
with open(f"{o}/pairs_cmp.txt", "w") as f:
    for k in sorted(set((i, n) for (_, i, n) in r)):
        c, nw = r.get(("cur",) + k), r.get(("new",) + k)
        if c and nw: print(f"{k[0]:8s} {k[1]:>10d}  cur {c[0]:9.2f} us (CUB/patc {c[1]:.3f})  new {nw[0]:9.2f} us (CUB/patc {nw[1]:.3f})  new/cur {nw[0]/c[0]:.3f}", file=f)
PY
cat $OUT/pairs_cmp.txt
# 2. section m (the new pairs multisplits against the interpreter, sanitizers), and the
# pairs' sorts under the sanitizers (the new 384x26 tile at 2^23 + 9)
rm -rf build && mv build-slim build
OUT=/tmp/m bash tests/gpu/all.sh --no-bench --sections m > /tmp/m.console 2>&1
grep -E "FAIL|passed" /tmp/m.console | tail -5; grep -c PASS /tmp/m/gpu_tests.csv; cp /tmp/m/gpu_tests.csv $OUT/m.csv; tail -1 /tmp/m.console
cc -std=c11 -O2 -Iruntime -o /tmp/sc tests/gpu/sort_check.c build/runtime/libpatrt.a -ldl -lm -lpthread
export LD_LIBRARY_PATH=$PWD/build/extra-libs
{
for a in "--pairs=u32 f32 8388617 uniform" "--pairs=u32 f32 8388617 few" "--pairs=i32 f32 8388617 special" "--desc --pairs=u32 f32 8388617 sorted"; do
  echo "$a: $(/tmp/sc $a 2>&1 | tail -1)"
done
for tool in memcheck racecheck synccheck; do
  for a in "--pairs=u32 f32 4097 special" "--desc --pairs=f32 i32 100003 few" "--pairs=i32 f32 8388617 special"; do
    o=$(compute-sanitizer --tool $tool --error-exitcode 1 /tmp/sc $a 2>&1); rc=$?
    echo "$tool $a: rc=$rc $(echo "$o" | grep -m1 -oE 'sort_check: [0-9]+ passed, [0-9]+ failed') $(echo "$o" | grep -m1 -oE '(ERROR|RACECHECK) SUMMARY.*')"
  done
done
} 2>&1 | tee $OUT/sorts.txt
