"""patc from Python against PyTorch (and CuPy where it is installed) on the GPU.

    python3 bench/python_bench.py [--out DIR] [--min-log 10] [--max-log 28] [--step-log 2]
                                  [--dtypes f32,i32] [--reps 50] [--dry-run]

For each n = 2^min-log .. 2^max-log (steps of 2^step-log) and element type:
  reduce          patc.reduce(x)                        torch.sum(x)           cupy.sum(x)
  inclusive_scan  patc.inclusive_scan(x)                torch.cumsum(x, 0)     cupy.cumsum(x)
  exclusive_scan  patc.exclusive_scan(x)                (torch.cumsum(x, 0), the nearest)
  filter          patc.filter(x, "fun(x => x > t)")     torch.masked_select(x, x > t)  x[x > t] (CuPy)
  partition       patc.partition(x, ..., stable=True)   (none in torch)
  sort            patc.sort(x)                          torch.sort(x).values   cupy.sort(x)
and a device-to-device copy of the input's bytes (out.copy_(x)), the ceiling. Each call is timed alone, Python included, with CUDA
events on the current stream around it (the GPU is idle before it, so the time covers
the host's work until the last launch, then the kernels); after warm-up, implementations
interleaved run by run, the median of --reps runs (more at small n). Then each is timed
streamed: CUDA events around K calls back to back (K = 100 up to 2^20, 10 above), the
time per call, so that the host's work of one call overlaps the GPU's of the one before
(what a loop of calls sees), the median of 15 rounds, implementations interleaved. Every
result is checked against torch's before timing (filter: 50% of uniform [0, 1) selected,
t = 0.5).

Then the per-call overhead of a small kernel: examples/saxpy.rise's saxpy called
back to back at n = 1..1024 (host time per call, out= given and not), beside
torch.add(y, x, alpha=a), the same operation as one torch op; where the package has
patc._fast (the C path of a small call), each patc row again on the ctypes path.

Writes DIR/python_bench.csv, DIR/python_bench.md (the tables) and DIR/command.txt. DIR
defaults to bench/results/<date>-<gpu>-python. --dry-run needs no GPU: the same loops on
NumPy arrays (patc's CPU interpreter against NumPy, host timers, n <= 2^14), to check the
script itself.
"""
import argparse
import datetime
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys
import time

import numpy as np

import patc
from patc import _core as patc_core

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
DTYPES = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64"}


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out")
    p.add_argument("--min-log", type=int, default=10)
    p.add_argument("--max-log", type=int, default=28)
    p.add_argument("--step-log", type=int, default=2)
    p.add_argument("--dtypes", default="f32,i32")
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--dry-run", action="store_true")
    return p.parse_args()


# ---------------------------------------------------------------- backends


class Gpu:
    """PyTorch tensors on the current device; CuPy views of the same memory."""

    def __init__(self):
        import torch
        self.torch = torch
        try:
            import cupy
            self.cupy = cupy
        except ImportError:
            self.cupy = None
        self.name = torch.cuda.get_device_name()

    def data(self, dtype, n):
        t = self.torch
        g = t.Generator(device="cuda").manual_seed(n)
        if dtype.startswith("float"):
            return t.rand(n, device="cuda", dtype=getattr(t, dtype), generator=g)
        return t.randint(0, 100, (n,), device="cuda", dtype=getattr(t, dtype), generator=g)

    def cp(self, x):
        return self.cupy.from_dlpack(x) if self.cupy is not None else None

    def time_ms(self, fn):
        t = self.torch
        a, b = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        return a.elapsed_time(b)

    def batch_ms(self, fn, k):
        t = self.torch
        a, b = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
        t.cuda.synchronize()
        a.record()
        for _ in range(k):
            fn()
        b.record()
        b.synchronize()
        return a.elapsed_time(b) / k

    def impls(self, op, x, dtype):
        t, cp = self.torch, self.cp(x)
        thr = 0.5 if dtype.startswith("float") else 50
        out = t.empty_like(x)
        cupy = self.cupy
        r = {}
        if op == "reduce":
            r["patc"] = lambda: patc.reduce(x)
            r["torch"] = lambda: t.sum(x)
            if cupy is not None:
                r["cupy"] = lambda: cupy.sum(cp)
        elif op == "inclusive_scan":
            r["patc"] = lambda: patc.inclusive_scan(x)
            r["torch"] = lambda: t.cumsum(x, 0)
            if cupy is not None:
                r["cupy"] = lambda: cupy.cumsum(cp)
        elif op == "exclusive_scan":
            r["patc"] = lambda: patc.exclusive_scan(x)
            r["torch"] = lambda: t.cumsum(x, 0)
        elif op == "filter":
            r["patc"] = lambda: patc.filter(x, "fun(x => x > t)", t=thr)
            r["torch"] = lambda: t.masked_select(x, x > thr)
            if cupy is not None:
                r["cupy"] = lambda: cp[cp > thr]
        elif op == "partition":
            r["patc"] = lambda: patc.partition(x, "fun(x => x > t)", t=thr, stable=True)
        elif op == "sort":
            r["patc"] = lambda: patc.sort(x)
            r["torch"] = lambda: t.sort(x).values
            if cupy is not None:
                r["cupy"] = lambda: cupy.sort(cp)
        r["copy"] = lambda: out.copy_(x)
        return r

    def check(self, op, x, dtype):
        t = self.torch
        thr = 0.5 if dtype.startswith("float") else 50
        flt = dtype.startswith("float")
        # 4-byte integer sums wrap (2^28 elements of 0..99 pass 2^31): compared modulo 2^32
        wrap = (lambda d: d) if flt or x.element_size() == 8 else (lambda d: t.remainder(d, 2 ** 32))
        if op == "reduce":
            if flt:
                got, want = patc.reduce(x).double(), x.double().sum()
                ok = abs(got.item() - want.item()) <= 1e-3 * max(1.0, abs(want.item()))
            else:
                ok = wrap(patc.reduce(x).long() - x.long().sum()).item() == 0
        elif op in ("inclusive_scan", "exclusive_scan"):
            got = (patc.inclusive_scan if op == "inclusive_scan" else patc.exclusive_scan)(x)
            want = t.cumsum(x.double() if flt else x.long(), 0)
            if op == "exclusive_scan":
                want = t.cat([want.new_zeros(1), want[:-1]])
            if flt:
                ok = ((got.double() - want).abs() / want.abs().clamp(min=1)).max().item() <= 1e-3
            else:
                ok = bool((wrap(got.long() - want) == 0).all())
        elif op == "filter":
            ok = t.equal(patc.filter(x, "fun(x => x > t)", t=thr), t.masked_select(x, x > thr))
        elif op == "sort":
            ok = t.equal(patc.sort(x), t.sort(x).values)
        else:
            o, m = patc.partition(x, "fun(x => x > t)", t=thr, stable=True)
            ok = m == int((x > thr).sum()) and t.equal(o[:m], x[x > thr]) and t.equal(o[m:], x[x <= thr])
        if not ok:
            raise SystemExit("python_bench: patc's %s of %d %s differs from torch's" % (op, x.numel(), dtype))

    def overhead(self, reps=2000):
        """Host time per call of saxpy at small n, back to back, and torch.add's."""
        t = self.torch
        k = patc.compile(ROOT / "examples" / "saxpy.rise").kernel("saxpy")
        rows = []
        for n in (1, 32, 1024):
            x, y = t.rand(n, device="cuda"), t.rand(n, device="cuda")
            out = t.empty_like(x)
            cases = {"patc saxpy (out=)": lambda: k(2.0, x, y, n=n, out=out),
                     "patc saxpy": lambda: k(2.0, x, y, n=n),
                     "torch.add (out=)": lambda: t.add(y, x, alpha=2.0, out=out),
                     "torch.add": lambda: t.add(y, x, alpha=2.0),
                     "patc.reduce": lambda: patc.reduce(x),
                     "torch.sum": lambda: t.sum(x),
                     "patc.inclusive_scan": lambda: patc.inclusive_scan(x),
                     "torch.cumsum": lambda: t.cumsum(x, 0)}
            c_path = {name: True for name in cases}
            if C_PATH[0] is not None:  # the same patc calls with patc._fast switched off
                for name in [c for c in cases if c.startswith("patc")]:
                    cases[name + " [ctypes path]"] = cases[name]
                    c_path[name + " [ctypes path]"] = False
            assert t.allclose(k(2.0, x, y, n=n), 2.0 * x + y)
            for name, fn in cases.items():
                use_c_path(c_path[name])
                for _ in range(50):
                    fn()
            t.cuda.synchronize()
            for name, fn in cases.items():
                use_c_path(c_path[name])
                per = []
                for _ in range(5):
                    t0 = time.perf_counter()
                    for _ in range(reps):
                        fn()
                    t1 = time.perf_counter()
                    t.cuda.synchronize()
                    per.append((t1 - t0) / reps * 1e6)
                rows.append((name, n, statistics.median(per), self.time_ms(fn) * 1e3))
            use_c_path(True)
        return rows


C_PATH = tuple(getattr(patc_core, f, None) for f in ("_fast_kernel", "_fast_algo", "_fast_sort", "_fast_select"))


def use_c_path(on):
    """patc._fast's C path of a small call on (as the package runs) or off (the ctypes path)."""
    if C_PATH[0] is None:  # a package without it
        return
    patc_core._fast_kernel, patc_core._fast_algo, patc_core._fast_sort, patc_core._fast_select = \
        C_PATH if on else (None,) * 4


class Cpu:
    """--dry-run: NumPy arrays on patc's CPU interpreter, host timers."""

    name = "cpu-dry-run"
    cupy = None

    def data(self, dtype, n):
        rng = np.random.default_rng(n)
        return rng.random(n).astype(dtype) if dtype.startswith("float") else rng.integers(0, 100, n).astype(dtype)

    def time_ms(self, fn):
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e3

    def batch_ms(self, fn, k):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        return (time.perf_counter() - t0) * 1e3 / k

    def impls(self, op, x, dtype):
        thr = 0.5 if dtype.startswith("float") else 50
        out = np.empty_like(x)
        r = {"reduce": {"patc": lambda: patc.reduce(x), "torch": lambda: np.sum(x)},
             "inclusive_scan": {"patc": lambda: patc.inclusive_scan(x), "torch": lambda: np.cumsum(x)},
             "exclusive_scan": {"patc": lambda: patc.exclusive_scan(x), "torch": lambda: np.cumsum(x)},
             "filter": {"patc": lambda: patc.filter(x, "fun(x => x > t)", t=thr), "torch": lambda: x[x > thr]},
             "partition": {"patc": lambda: patc.partition(x, "fun(x => x > t)", t=thr, stable=True)},
             "sort": {"patc": lambda: patc.sort(x), "torch": lambda: np.sort(x)}}[op]
        r["copy"] = lambda: np.copyto(out, x)
        return r

    def check(self, op, x, dtype):
        thr = 0.5 if dtype.startswith("float") else 50
        if op == "filter":
            assert np.array_equal(patc.filter(x, "fun(x => x > t)", t=thr), x[x > thr])
        elif op == "inclusive_scan":
            assert np.allclose(patc.inclusive_scan(x), np.cumsum(x, dtype=np.float64), rtol=1e-4)
        elif op == "sort":
            assert np.array_equal(patc.sort(x), np.sort(x))

    def overhead(self, reps=200):
        k = patc.compile(ROOT / "examples" / "saxpy.rise").kernel("saxpy")
        rows = []
        for n in (1, 32, 1024):
            x = np.random.rand(n).astype("f4")
            out = np.empty_like(x)
            for name, fn in {"patc saxpy (out=)": lambda: k(2.0, x, x, n=n, out=out),
                             "numpy": lambda: np.add(x, x, out=out)}.items():
                t0 = time.perf_counter()
                for _ in range(reps):
                    fn()
                rows.append((name, n, (time.perf_counter() - t0) / reps * 1e6, float("nan")))
        return rows


# ---------------------------------------------------------------- the run


def run(args):
    be = Cpu() if args.dry_run else Gpu()
    hi = min(args.max_log, 14) if args.dry_run else args.max_log
    sizes = [1 << k for k in range(args.min_log, hi + 1, args.step_log)]
    ops = ["reduce", "inclusive_scan", "exclusive_scan", "filter", "partition", "sort"]
    rows = []
    for dname in args.dtypes.split(","):
        dtype = DTYPES[dname]
        for n in sizes:
            x = be.data(dtype, n)
            for op in ops:
                be.check(op, x, dtype)
                impls = be.impls(op, x, dtype)
                for fn in impls.values():  # warm-up (first calls compile their variant)
                    for _ in range(5 if not args.dry_run else 1):
                        fn()
                reps = args.reps * (4 if n <= 1 << 16 else 1) if not args.dry_run else 3
                times = {k: [] for k in impls}
                for _ in range(reps):
                    for name, fn in impls.items():
                        times[name].append(be.time_ms(fn))
                kb = (100 if n <= 1 << 20 else 10) if not args.dry_run else 3
                streamed = {name: [] for name in impls}
                for _ in range(15 if not args.dry_run else 2):
                    for name, fn in impls.items():
                        streamed[name].append(be.batch_ms(fn, kb))
                bytes_in = x.numel() * x.element_size() if hasattr(x, "numel") else x.nbytes
                for name, ts in times.items():
                    med = statistics.median(ts)
                    rows.append({"op": op, "dtype": dname, "n": n, "impl": name, "median_us": med * 1e3,
                                 "min_us": min(ts) * 1e3, "reps": reps,
                                 "gbps_in": bytes_in / (med * 1e-3) / 1e9,
                                 "streamed_us": statistics.median(streamed[name]) * 1e3})
                print("%-15s %s n=2^%-2d %s" % (op, dname, n.bit_length() - 1,
                                                "  ".join("%s %.1f/%.1f us" % (k, statistics.median(v) * 1e3,
                                                                               statistics.median(streamed[k]) * 1e3)
                                                          for k, v in times.items())), flush=True)
            del x
    over = be.overhead()
    return be, rows, over


def write(args, be, rows, over):
    slug = re.sub(r"[^a-z0-9]+", "-", be.name.lower()).strip("-")
    out = pathlib.Path(args.out or HERE / "results" / ("%s-%s-python" % (datetime.date.today().isoformat(), slug)))
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "python_bench.csv", "w") as f:
        f.write("op,dtype,n,impl,median_us,min_us,reps,gbps_in,streamed_us\n")
        for r in rows:
            f.write("%s,%s,%d,%s,%.3f,%.3f,%d,%.2f,%.3f\n" % (r["op"], r["dtype"], r["n"], r["impl"], r["median_us"],
                                                              r["min_us"], r["reps"], r["gbps_in"], r["streamed_us"]))
        f.write("\noverhead,n,host_us_per_call,event_us_one_call\n")
        for name, n, us, ev in over:
            f.write("%s,%d,%.3f,%.3f\n" % (name, n, us, ev))
    lines = ["# patc from Python against PyTorch%s: %s" % (" and CuPy" if be.cupy else "", be.name), "",
             "Each cell: alone / streamed, in us. Alone: the median time of one call, Python included (CUDA "
             "events around the call, the GPU idle before it). Streamed: the time per call of 100 calls back to "
             "back (10 above 2^20), CUDA events around them, the median of 15 rounds. torch / patc above 1 means "
             "patc is faster. copy: a device-to-device copy of the input's bytes.", ""]
    impl_names = []
    for r in rows:
        if r["impl"] not in impl_names:
            impl_names.append(r["impl"])
    keyed = {(r["op"], r["dtype"], r["n"], r["impl"]): r["median_us"] for r in rows}
    skeyed = {(r["op"], r["dtype"], r["n"], r["impl"]): r["streamed_us"] for r in rows}
    for op in dict.fromkeys(r["op"] for r in rows):
        for dname in dict.fromkeys(r["dtype"] for r in rows):
            ns = sorted({r["n"] for r in rows if r["op"] == op and r["dtype"] == dname})
            impls = [i for i in impl_names if (op, dname, ns[0], i) in keyed] if ns else []
            if not ns:
                continue
            lines.append("## %s %s" % (op, dname))
            lines.append("")
            lines.append("| n | " + " | ".join(impls) + (" | torch / patc alone | streamed |" if "torch" in impls
                                                         else " |"))
            lines.append("|---" * (len(impls) + 1 + 2 * ("torch" in impls)) + "|")
            for n in ns:
                cells = ["%.1f / %.1f" % (keyed[(op, dname, n, i)], skeyed[(op, dname, n, i)]) for i in impls]
                ratio = " | %.2f | %.2f" % (keyed[(op, dname, n, "torch")] / keyed[(op, dname, n, "patc")],
                                            skeyed[(op, dname, n, "torch")] / skeyed[(op, dname, n, "patc")]) \
                    if "torch" in impls else ""
                lines.append("| 2^%d | %s%s |" % (n.bit_length() - 1, " | ".join(cells), ratio))
            lines.append("")
    lines += ["## Per-call overhead", "",
              "Host time per call, calls back to back (us), and one call's CUDA-event time (us).", "",
              "| call | n | host us / call | event us |", "|---|---|---|---|"]
    lines += ["| %s | %d | %.2f | %.1f |" % r for r in over]
    lines.append("")
    text = "\n".join(lines)
    (out / "python_bench.md").write_text(text)
    versions = ["patc %s (%s)" % (patc.__version__, patc.library_version),
                "patc._fast %s" % ("built" if C_PATH[0] is not None else "not built (the ctypes path only)"),
                "python %s" % platform.python_version(), "numpy %s" % np.__version__]
    if not args.dry_run:
        versions.append("torch %s (CUDA %s)" % (be.torch.__version__, be.torch.version.cuda))
        if be.cupy is not None:
            versions.append("cupy %s" % be.cupy.__version__)
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        commit = "unknown"
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                              "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except OSError:
        smi = "no nvidia-smi"
    wheel = os.environ.get("PATC_WHEEL")
    (out / "command.txt").write_text("date: %s, commit %s\nrun: %s%s\nnvidia-smi: %s\n%s\n" % (
        datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), commit or "unknown",
        " ".join(["python3"] + sys.argv), " (PATC_WHEEL=%s)" % os.path.basename(wheel) if wheel else "", smi,
        ", ".join(versions)))
    print(text)
    print("results in %s" % out)


def main():
    args = parse()
    be, rows, over = run(args)
    write(args, be, rows, over)


if __name__ == "__main__":
    main()
