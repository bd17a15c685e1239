"""patc's own host time per call from Python, measured without a GPU.

    PATC_FAKECUDA=build/runtime/fakecuda/libcuda.so.1 PATC_LIBRARY=build/runtime/libpatrt.so \
        PYTHONPATH=python/src python3 bench/python_overhead.py [--reps 20000] [--rounds 5] [--profile KIND]

Against tests/fakecuda's stand-in libcuda.so.1, whose cuLaunchKernel checks its
arguments and returns (no kernel runs), each kind of small call (n = 1024 float32) is
made --reps times back to back and timed with perf_counter; the median and the least
of --rounds rounds are printed in us per call. What is left is patc's own host work,
Python and C: the argument checks, the arrays' descriptions, the stream, the lock,
ctypes (or the extension) and libpatrt's enqueue. On a GPU the driver's launch (3-4 us
of host time on an H200) comes on top.

The arrays are __cuda_array_interface__ objects over the stand-in driver's memory
(PyTorch and CuPy need a real driver). A call that allocates its output would make a
CuPy or PyTorch array; here the allocation is replaced by handing out a ready-made
array, so those rows are patc's work around an allocation, not the allocation (1.5-2.7
us for torch.empty on an H200 host, bench/results/2026-11-26-nvidia-h200-python-overhead).

Where the package has patc._fast (the C path of a small call, python/_fast.c), each kind
is timed both ways, rounds interleaved: "C path" as the package runs, "ctypes path" with
the C path switched off (what PATC_PURE_PYTHON=1 gives, and what a package built without
Python's headers does).

--profile KIND runs that kind under cProfile and prints the top of its profile.
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

FAKE = os.environ.get("PATC_FAKECUDA")
if not FAKE:
    raise SystemExit("python_overhead: set PATC_FAKECUDA to tests/fakecuda's libcuda.so.1 (build/runtime/fakecuda/)")
_drv = ctypes.CDLL(FAKE, mode=ctypes.RTLD_GLOBAL)  # before libpatrt dlopens libcuda.so.1
_drv.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_size_t]
assert _drv.cuInit(0) == 0
os.environ.setdefault("PATC_CACHE_DIR", "/tmp/patc-python-overhead-cache")

import patc  # noqa: E402 (after the stand-in driver)
from patc import _arrays, _core  # noqa: E402

SAXPY = """kernel saxpy = nFun(n =>
  fun(f32)(a => fun(n.f32)(xs => fun(n.f32)(ys =>
    zip(xs)(ys) |> mapGlobal(fun(p => a * fst(p) + snd(p)))))))
"""


class Dev:
    """n elements of typestr in the stand-in driver's memory, as __cuda_array_interface__."""

    def __init__(self, n, typestr="<f4", size=4):
        p = ctypes.c_ulonglong()
        assert _drv.cuMemAlloc_v2(ctypes.byref(p), max(n * size, 1)) == 0
        self.__cuda_array_interface__ = {"shape": (n,) if n >= 0 else (), "typestr": typestr,
                                         "data": (p.value, False), "version": 2, "strides": None}


def ready_made_outputs():
    """Replace the allocation of outputs by a pool of ready arrays (one per shape and
    type, handed out again each call): what is timed is patc's work around it."""
    pool = {}
    sizes = {0: 4, 1: 8, 2: 4, 3: 4, 4: 8, 5: 8, 6: 1}
    strs = {0: "<f4", 1: "<f8", 2: "<i4", 3: "<u4", 4: "<i8", 5: "<u8", 6: "|b1"}

    def empty(lib, t, count, dev):
        key = (t, count)
        a = pool.get(key)
        if a is None:
            a = pool[key] = Dev(count if count != () else -1, strs[t], sizes[t])
            if count == ():
                a.__cuda_array_interface__["shape"] = ()
        return a
    _arrays.empty = empty


def kinds(n):
    k = patc.compile(SAXPY).kernel("saxpy")
    x, y, out = Dev(n), Dev(n), Dev(n)
    xu = Dev(n, "<u4")
    r, s, cnt, so = Dev(1), Dev(n), Dev(1, "<u4"), Dev(n, "<u4")
    st = 0x1234  # a stand-in stream handle: the stand-in driver takes any
    return {
        "kernel out=": lambda: k(2.0, x, y, n=n, out=out),
        "kernel out= stream=": lambda: k(2.0, x, y, n=n, out=out, stream=st),
        "kernel (allocating)": lambda: k(2.0, x, y, n=n),
        "reduce out=": lambda: patc.reduce(x, out=r),
        "reduce (allocating)": lambda: patc.reduce(x),
        "inclusive_scan out=": lambda: patc.inclusive_scan(x, out=s),
        "inclusive_scan (allocating)": lambda: patc.inclusive_scan(x),
        "exclusive_scan out=": lambda: patc.exclusive_scan(x, out=s),
        "filter out= count= sync=False": lambda: patc.filter(x, "fun(x => x > t)", t=0.5, out=s, count=cnt,
                                                           sync=False),
        "partition out= count= sync=False": lambda: patc.partition(x, "fun(x => x > t)", t=0.5, out=s, count=cnt,
                                                                 sync=False),
        "sort out=": lambda: patc.sort(xu, out=so),
    }


# (none before the package had patc._fast: the script times such a package too)
_C_PATH = tuple(getattr(_core, f, None) for f in ("_fast_kernel", "_fast_algo", "_fast_sort", "_fast_select"))


def use_c_path(on):
    if _C_PATH[0] is None:
        return
    _core._fast_kernel, _core._fast_algo, _core._fast_sort, _core._fast_select = _C_PATH if on else (None,) * 4


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--only", help="a substring of the kinds to time")
    p.add_argument("--profile", help="a kind (substring) to run under cProfile")
    a = p.parse_args()
    ready_made_outputs()
    cases = kinds(a.n)
    if a.only:
        cases = {k: v for k, v in cases.items() if a.only in k}
    for fn in cases.values():  # warm-up: the GPU programs, plans, wraps
        for _ in range(200):
            fn()
    if a.profile:
        import cProfile
        import pstats
        name = next(k for k in cases if a.profile in k)
        fn = cases[name]
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(a.reps):
            fn()
        pr.disable()
        print("profile of %r, %d calls" % (name, a.reps))
        pstats.Stats(pr).sort_stats("tottime").print_stats(15)
        return
    paths = (True, False) if _C_PATH[0] is not None else (False,)
    print("host time per call on the stand-in driver (no GPU), n=%d, %d calls x %d rounds, python %s, %s"
          % (a.n, a.reps, a.rounds, sys.version.split()[0],
             "patc._fast built" if len(paths) == 2 else "no patc._fast: the ctypes path only"))
    print("%-32s %21s %21s" % ("", "C path (patc._fast)", "ctypes path"))
    print("%-32s %10s %10s %10s %10s" % ("call", "median us", "min us", "median us", "min us"))
    per = {(name, c): [] for name in cases for c in paths}
    for _ in range(a.rounds):  # kinds and paths interleaved round by round
        for name, fn in cases.items():
            for c in paths:
                use_c_path(c)
                t0 = time.perf_counter()
                for _ in range(a.reps):
                    fn()
                per[(name, c)].append((time.perf_counter() - t0) / a.reps * 1e6)
    use_c_path(True)
    for name in cases:
        cols = []
        for c in (True, False):
            v = per.get((name, c))
            cols += ["%10.2f" % statistics.median(v), "%10.2f" % min(v)] if v else ["%10s" % "-", "%10s" % "-"]
        print("%-32s %s" % (name, " ".join(cols)))


if __name__ == "__main__":
    main()
