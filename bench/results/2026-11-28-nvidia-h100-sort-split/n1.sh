set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/sk bench/sort_kernels.cu build/runtime/libpatrt.a -ldl -lm -lpthread || exit 3
for c in "f32 uniform 67108864" "f32+u32 uniform 67108864"; do
  t=$(echo $c | tr ' +' '_p')
  ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct --csv --print-units base \
    /tmp/sk --root $PWD $c 1 > $OUT/$t.csv 2> $OUT/$t.log
done
python3 - $OUT <<'PY'
import csv, io, sys, glob, collections
for f in sorted(glob.glob(sys.argv[1] + "/*_67108864.csv")):
    L = open(f).read().splitlines()
    st = next((i for i, l in enumerate(L) if l.startswith('"ID"')), None)
    if st is None: print(f, "no rows"); continue
    rows = list(csv.DictReader(io.StringIO("\n".join(L[st:]))))
    k = collections.OrderedDict()
    for r in rows: k.setdefault((r["ID"], r["Kernel Name"][:40]), {})[r["Metric Name"]] = r["Metric Value"]
    print("==", f.split("/")[-1])
    for (i, n), m in k.items():
        print(f'{i:>4} {n:40s} {float(m.get("gpu__time_duration.sum","0").replace(",",""))/1e3:9.1f} us  read {float(m.get("dram__bytes_read.sum","0").replace(",",""))/2**20:8.1f} MiB  write {float(m.get("dram__bytes_write.sum","0").replace(",",""))/2**20:8.1f} MiB  L2 hit {m.get("lts__t_sector_hit_rate.pct","")}')
PY
