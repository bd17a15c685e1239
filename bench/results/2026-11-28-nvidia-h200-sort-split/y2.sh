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
