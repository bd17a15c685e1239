#!/usr/bin/env python3
"""plot.py RESULTS_CSV PLOT_PNG: log-log time vs n, one line per impl, one subplot per workload.
The dashed line is the time to read n*sizeof(T) bytes at the measured copy bandwidth.
plot.py --scan SCAN_CSV PNG and plot.py --select SELECT_CSV PNG: scan_bench's and select_bench's CSV;
plot.py --sort SORT_CSV PNG: sort_bench's."""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

if sys.argv[1] == "--scan":
    # scan_bench's CSV: time (alone) against n per implementation, and CUB / patc
    rows = list(csv.DictReader(open(sys.argv[2])))
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5))
    impls = []
    for r in rows:
        if r["impl"] not in impls:
            impls.append(r["impl"])
    for im in impls:
        pts = sorted((int(r["n"]), float(r["alone_us"])) for r in rows if r["impl"] == im)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=im,
                linestyle="--" if im == "copy" else "-")
    ax.set_xscale("log", base=2); ax.set_yscale("log")
    ax.set_xlabel("n"); ax.set_ylabel("median us (alone)"); ax.legend(fontsize=7); ax.set_title("device scans")
    t = {(int(r["n"]), r["impl"]): float(r["alone_us"]) for r in rows}
    for kind in ("incl_f32", "excl_f32", "incl_i32", "excl_i32"):
        ns = sorted(n for (n, im) in t if im == "patc_" + kind and (n, "cub_" + kind) in t)
        bx.plot(ns, [t[(n, "cub_" + kind)] / t[(n, "patc_" + kind)] for n in ns], marker="o", ms=3, label=kind)
    bx.axhline(1.0, color="gray", linewidth=0.8)
    bx.set_xscale("log", base=2); bx.set_xlabel("n"); bx.set_ylabel("CUB time / patc time (alone)")
    bx.legend(fontsize=7); bx.set_title("speed-up over CUB DeviceScan")
    fig.tight_layout()
    fig.savefig(sys.argv[3], dpi=110)
    sys.exit(0)

if sys.argv[1] == "--select":
    # select_bench's CSV: per type, time (alone) against n at 50% selected for every
    # implementation, and CUB / patc for filter and partition at each selectivity
    rows = list(csv.DictReader(open(sys.argv[2])))
    types = []
    for r in rows:
        if r["type"] not in types:
            types.append(r["type"])
    fig, axes = plt.subplots(len(types), 2, figsize=(13, 5 * len(types)), squeeze=False)
    t = {(r["impl"], r["type"], int(r["selectivity"]), int(r["n"])): r for r in rows}
    sels = sorted({int(r["selectivity"]) for r in rows})
    for (ax, bx), ty in zip(axes, types):
        sel = 50 if 50 in sels else sels[len(sels) // 2]
        impls = []
        for r in rows:
            if r["type"] == ty and r["impl"] not in impls:
                impls.append(r["impl"])
        for im in impls:
            pts = sorted((n, float(r["alone_us"]), r["correct"] == "true")
                         for (i, y, s, n), r in t.items() if i == im and y == ty and s == sel)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=im,
                    linestyle="--" if im == "copy" else "-")
            bad = [p for p in pts if not p[2]]
            if bad:
                ax.plot([p[0] for p in bad], [p[1] for p in bad], "rx", ms=9)
        ax.set_xscale("log", base=2); ax.set_yscale("log")
        ax.set_xlabel("n"); ax.set_ylabel("median us (alone)"); ax.legend(fontsize=7)
        ax.set_title("%s, %d%% selected (red x = differs from CUB)" % (ty, sel))
        for op, cub, patc, style in (("filter", "cub_select", "patc_filter", "-"),
                                     ("partition", "cub_partition", "patc_partition", "--"),
                                     ("stable partition", "cub_partition", "patc_partition_stable", ":")):
            for s in sels:
                ns = sorted(n for (i, y, s2, n) in t if i == patc and y == ty and s2 == s and (cub, ty, s, n) in t)
                bx.plot(ns, [float(t[(cub, ty, s, n)]["alone_us"]) / float(t[(patc, ty, s, n)]["alone_us"]) for n in ns],
                        marker="o", ms=3, linestyle=style, label="%s %d%%" % (op, s))
        bx.axhline(1.0, color="gray", linewidth=0.8)
        bx.set_xscale("log", base=2); bx.set_xlabel("n"); bx.set_ylabel("CUB time / patc time (alone)")
        bx.legend(fontsize=7); bx.set_title("%s: speed-up over CUB DeviceSelect / DevicePartition" % ty)
    fig.tight_layout()
    fig.savefig(sys.argv[3], dpi=110)
    sys.exit(0)

if sys.argv[1] == "--sort":
    # sort_bench's CSV: per type, time (alone) against n for uniform keys (the copy,
    # memcpy_d2d, CUB, patc), and CUB / patc for every input kind
    rows = list(csv.DictReader(open(sys.argv[2])))
    types = []
    for r in rows:
        if r["type"] not in types:
            types.append(r["type"])
    fig, axes = plt.subplots(len(types), 2, figsize=(13, 5 * len(types)), squeeze=False)
    for (ax, bx), ty in zip(axes, types):
        for im in ("memcpy_d2d", "cub", "patc"):
            pts = sorted((int(r["n"]), float(r["median_us"])) for r in rows
                         if r["type"] == ty and r["input"] == "uniform" and r["impl"] == im)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=im,
                    linestyle="--" if im == "memcpy_d2d" else "-")
        ax.set_xscale("log", base=2); ax.set_yscale("log")
        ax.set_xlabel("n"); ax.set_ylabel("median us (alone)"); ax.legend(fontsize=7)
        ax.set_title("%s keys, uniform input" % ty)
        for kind in ("uniform", "few", "sorted"):
            pts = sorted((int(r["n"]), float(r["ratio_cub_over_patc"])) for r in rows
                         if r["type"] == ty and r["input"] == kind and r["impl"] == "patc")
            bx.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=kind)
        bx.axhline(1.0, color="gray", linewidth=0.8)
        bx.set_xscale("log", base=2); bx.set_xlabel("n"); bx.set_ylabel("CUB time / patc time (alone)")
        bx.legend(fontsize=7); bx.set_title("%s: speed-up over CUB DeviceRadixSort" % ty)
    fig.tight_layout()
    fig.savefig(sys.argv[3], dpi=110)
    sys.exit(0)

src, dst = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(src)))
copy = [r for r in rows if r["impl"] == "memcpy_d2d"]
copy_gbs = float(copy[0]["GB/s"]) if copy else None
workloads = []
for r in rows:
    if r["impl"] != "memcpy_d2d" and r["workload"] not in workloads:
        workloads.append(r["workload"])

fig, axes = plt.subplots(1, len(workloads), figsize=(6 * len(workloads), 5), squeeze=False)
for ax, w in zip(axes[0], workloads):
    impls = []
    for r in rows:
        if r["workload"] == w and r["impl"] not in impls:
            impls.append(r["impl"])
    ns_all = sorted({int(r["n"]) for r in rows if r["workload"] == w})
    for im in impls:
        pts = sorted((int(r["n"]), float(r["median_us"]), r["correct"] == "true")
                     for r in rows if r["workload"] == w and r["impl"] == im)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=im)
        bad = [p for p in pts if not p[2]]
        if bad:
            ax.plot([p[0] for p in bad], [p[1] for p in bad], "rx", ms=9)
    if copy_gbs:
        ymin = min(float(r["median_us"]) for r in rows if r["workload"] == w) / 3
        bound = [(n, n * 4 / (copy_gbs * 1e3)) for n in ns_all]
        bound = [b for b in bound if b[1] >= ymin]
        if bound:
            ax.plot([b[0] for b in bound], [b[1] for b in bound], "k--", lw=1,
                    label="n*4 B at copy BW (%.0f GB/s)" % copy_gbs)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (elements)")
    ax.set_ylabel("median time (µs)")
    ax.set_title(w)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
fig.suptitle("Reductions: median of timed-alone runs (red x = failed verification)")
fig.tight_layout()
fig.savefig(dst, dpi=120)
print("wrote", dst)
