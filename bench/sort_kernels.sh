#!/usr/bin/env bash
# sort_kernels.sh: each kernel of patc's sort and of CUB's, timed one by one by Nsight
# Compute at the boost clock and with warm caches (--clock-control none --cache-control
# none, gpu__time_duration.sum alone), beside each sort's time by CUDA events without the
# profiler (bench/sort_kernels.cu). On the GPU machine:
#   bash bench/sort_kernels.sh OUTDIR CASE...      CASE: TYPE:INPUT:N, e.g. f32+u32:uniform:67108864
# PATC_BUILD: the build whose runtime/libpatrt.a is linked (default build). Writes
# OUTDIR/kernels.txt (per case: each sort's kernels in order, their medians over the
# sorts, the sum, and the events' median) and the raw CSVs.
set -eu
cd "$(dirname "$0")/.."
out=$1; shift
mkdir -p "$out"
lib=${PATC_BUILD:-build}/runtime/libpatrt.a
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/sort_kernels bench/sort_kernels.cu "$lib" -ldl -lm -lpthread
echo "bash bench/sort_kernels.sh $out $*  (lib $lib)" > "$out/command.txt"
for c in "$@"; do
  IFS=: read -r ty in n <<<"$c"
  tag=$(echo "$ty-$in-$n" | tr '+' 'p')
  /tmp/sort_kernels --root "$PWD" "$ty" "$in" "$n" 21 > "$out/$tag.events.txt"
  ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv --print-units base \
    /tmp/sort_kernels --root "$PWD" "$ty" "$in" "$n" 5 > "$out/$tag.ncu.csv" 2> "$out/$tag.ncu.log" || true
done
python3 - "$out" "$@" <<'PY' > "$out/kernels.txt"
import csv, io, statistics, sys
out = sys.argv[1]
for c in sys.argv[2:]:
    ty, inp, n = c.split(":")
    tag = f"{ty}-{inp}-{n}".replace("+", "p")
    ev = open(f"{out}/{tag}.events.txt").read().strip()
    lines = open(f"{out}/{tag}.ncu.csv").read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        print(f"== {c}: no ncu rows\n{ev}\n"); continue
    rows = [r for r in csv.DictReader(io.StringIO("\n".join(lines[start:])))
            if r["Metric Name"] == "gpu__time_duration.sum"]
    # consecutive launches of one side form one sort; patc's kernels are named sort*
    sorts = []
    for r in rows:
        side = "patc" if r["Kernel Name"].startswith("sort") else "cub"
        name = r["Kernel Name"].split("(")[0][:60]
        if not sorts or sorts[-1][0] != side: sorts.append((side, []))
        sorts[-1][1].append((name, float(r["Metric Value"].replace(",", "")) / 1000.0, r["Grid Size"], r["Block Size"]))
    print(f"== {c}\n{ev}")
    for side in ("patc", "cub"):
        ss = [k for s, k in sorts if s == side][1:]  # the first sort of each side compiles/allocates
        if not ss: continue
        m = len(ss[0])
        ss = [k for k in ss if len(k) == m]
        print(f"  {side}: {len(ss)} sorts")
        tot = []
        for i in range(m):
            d = [k[i][1] for k in ss]
            tot.append(statistics.median(d))
            print(f"    {i}: {ss[0][i][0]:<60} grid {ss[0][i][2]:>16} block {ss[0][i][3]:>12}  {statistics.median(d):9.2f} us (min {min(d):.2f} max {max(d):.2f})")
        print(f"    sum of medians {sum(tot):9.2f} us")
    print()
PY
cat "$out/kernels.txt"
