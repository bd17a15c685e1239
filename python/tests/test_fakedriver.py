"""The GPU path's host side against tests/fakecuda, the project's stand-in libcuda.so.1
(which checks launches and runs no kernel): buffers wrapped from
__cuda_array_interface__ objects, launches on a stream, the ready-made calls through
patc_algo_enqueue_ptr, the checks before a launch, and the host time of a call.

Runs when $PATC_FAKECUDA names that library (scripts/python_test.sh sets it from the
build's build/runtime/fakecuda/libcuda.so.1); it is loaded before libpatrt opens the
driver, so libpatrt's dlopen("libcuda.so.1") finds it by its soname. Needs NVRTC (the
GPU program is compiled to a cubin). Whether the kernels compute the right thing is
test_gpu.py's question, on a GPU.
"""
import ctypes
import os
import time

import pytest

FAKE = os.environ.get("PATC_FAKECUDA")
pytestmark = pytest.mark.skipif(not FAKE, reason="PATC_FAKECUDA is not set (tests/fakecuda's libcuda.so.1)")

if FAKE:
    _drv = ctypes.CDLL(FAKE, mode=ctypes.RTLD_GLOBAL)
    _drv.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_size_t]
    assert _drv.cuInit(0) == 0

import patc  # noqa: E402 (after the stand-in driver is loaded)

from programs import SAXPY  # noqa: E402 (the tests' folder is on sys.path)


class Dev:
    """n elements of typestr in the stand-in driver's "device" memory, seen through the
    CUDA array interface only."""

    def __init__(self, n, typestr="<f4", size=4, strides=None):
        p = ctypes.c_ulonglong()
        assert _drv.cuMemAlloc_v2(ctypes.byref(p), max(n * size, 1)) == 0
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (p.value, False),
                                         "version": 2, "strides": strides}


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PATC_CACHE_DIR", str(tmp_path))


def test_kernel_launches():
    k = patc.compile(SAXPY).kernel("saxpy")
    x, y, out = Dev(1000), Dev(1000), Dev(1000)
    assert k(2.0, x, y, n=1000, out=out) is out
    assert k(2.0, x, y, n=1000, out=out, stream=0) is out
    with pytest.raises(patc.DtypeError):
        k(2.0, Dev(1000, "<f8", 8), y, n=1000, out=out)
    with pytest.raises(patc.SizeError):
        k(2.0, Dev(999), y, n=1000, out=out)
    with pytest.raises(patc.ContiguityError):
        k(2.0, Dev(1000, strides=(8,)), y, n=1000, out=out)
    import importlib.util
    if not any(importlib.util.find_spec(m) for m in ("cupy", "torch")):
        with pytest.raises(patc.ArrayError, match="give out="):
            k(2.0, x, y, n=1000)  # no CuPy or PyTorch to make an output with


def test_algorithms_enqueue():
    n = 5000
    x, out, cnt = Dev(n), Dev(n), Dev(1, "<u4")
    assert patc.inclusive_scan(x, out=out) is out
    assert patc.exclusive_scan(x, "max", out=out) is out
    r = Dev(1)
    assert patc.reduce(x, out=r) is r
    with pytest.raises(patc.SizeError):
        patc.reduce(x, out=Dev(2))
    o, c = patc.filter(x, "fun(x => x > t)", t=0.5, out=out, count=cnt, sync=False)
    assert o is out and c is cnt
    o, c = patc.partition(x, "fun(x => x > t)", t=0.5, out=out, count=cnt, sync=False, stable=True)
    assert o is out
    # overlap is refused by libpatrt before anything is enqueued
    with pytest.raises(patc.InvalidArgumentError, match="overlap"):
        patc.inclusive_scan(x, out=x)


def test_sort_enqueues():
    """patc.sort on __cuda_array_interface__ arrays: the six launches enqueued through
    patc_sort_keys_ptr (the stand-in driver checks them), to another array and in place."""
    for typestr in ("<u4", "<i4", "<f4"):
        x, out = Dev(5000, typestr), Dev(5000, typestr)
        assert patc.sort(x, out=out) is out
        assert patc.sort(x, out=x) is x
    with pytest.raises(patc.DtypeError):
        patc.sort(Dev(10, "<f8", 8), out=Dev(10, "<f8", 8))


def test_call_overhead(capsys):
    """The host time of a small kernel's call and of a ready-made call, the driver's
    launch being a function that returns (what is left is patc's and Python's)."""
    k = patc.compile(SAXPY).kernel("saxpy")
    x, y, out = Dev(1024), Dev(1024), Dev(1024)
    for _ in range(100):
        k(2.0, x, y, n=1024, out=out)
    reps = 5000
    t0 = time.perf_counter()
    for _ in range(reps):
        k(2.0, x, y, n=1024, out=out)
    t1 = time.perf_counter()
    s = Dev(1024)
    patc.inclusive_scan(x, out=s)
    t2 = time.perf_counter()
    for _ in range(reps):
        patc.inclusive_scan(x, out=s)
    t3 = time.perf_counter()
    with capsys.disabled():
        print("\nhost time of a call (stand-in driver): kernel %.2f us, inclusive_scan %.2f us"
              % ((t1 - t0) / reps * 1e6, (t3 - t2) / reps * 1e6))
    assert (t1 - t0) / reps < 1e-3
