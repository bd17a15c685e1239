"""The patc package on the GPU with PyTorch and CuPy: the ready-made algorithms against
torch.cumsum, torch.sum/min/max, torch.masked_select (and against patc's CPU interpreter
on the same data for the unsigned types, which torch lacks operations for), kernels,
out=, streams, the array protocols and the argument errors.

Skips itself without a CUDA GPU (or without PyTorch). Runs under pytest, or alone
(`python3 python/tests/test_gpu.py`, for a machine without pytest), ending with the line
"N passed, M failed". tests/gpu/all.sh section w runs it with the carried wheel.

Where the package has patc._fast (python/_fast.c, the C path of a small call), every
test runs on it and again with it switched off (the ctypes path).
"""
import sys
import time

try:
    import pytest
except ImportError:  # run alone: a stand-in for the little of pytest used here
    pytest = None

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    torch = None
    HAVE_GPU = False

try:
    import cupy
except ImportError:
    cupy = None

import numpy as np

import patc
from patc import _core
from programs import MINMAX, SAXPY  # the tests' folder is on sys.path

if pytest is not None:
    pytestmark = pytest.mark.skipif(not HAVE_GPU, reason="needs PyTorch and a CUDA GPU")

_C_PATH = tuple(getattr(_core, f, None) for f in ("_fast_kernel", "_fast_algo", "_fast_sort", "_fast_select"))
PATHS = ("c", "ctypes") if _C_PATH[0] is not None else ("ctypes",)
_path = [PATHS[0]]


def use_path(p):
    """patc._fast's C path ("c") or the ctypes path ("ctypes") for the calls that follow."""
    _path[0] = p
    if _C_PATH[0] is not None:
        _core._fast_kernel, _core._fast_algo, _core._fast_sort, _core._fast_select = \
            _C_PATH if p == "c" else (None,) * 4


if pytest is not None:
    @pytest.fixture(autouse=True, params=PATHS)
    def call_path(request):
        use_path(request.param)
        yield request.param
        use_path(PATHS[0])

SIZES = [1, 31, 33, 1000, 4097, (1 << 20) + 7, 12345679]


def raises(exc, fn, *a, **kw):
    try:
        fn(*a, **kw)
    except exc as e:
        return e
    raise AssertionError("%s was not raised" % exc.__name__)


def tdata(dtype, n, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed + n)
    if dtype.is_floating_point:
        return torch.rand(n, device="cuda", dtype=dtype, generator=g)
    return torch.randint(0, 100, (n,), device="cuda", dtype=dtype, generator=g)


def assert_close(got, want, dtype):
    got, want = got.double().cpu(), want.double().cpu()
    if dtype.is_floating_point:
        tol = 1e-3 if dtype == torch.float32 else 1e-9
        err = ((got - want).abs() / want.abs().clamp(min=1.0)).max().item() if got.numel() else 0.0
        assert err <= tol, "relative error %g" % err
    else:
        assert torch.equal(got, want)


# ---------------------------------------------------------------- algorithms on torch


def test_torch_scans_and_reduce():
    for dtype in (torch.float32, torch.float64, torch.int32, torch.int64):
        for n in SIZES:
            x = tdata(dtype, n)
            ref = torch.cumsum(x.double() if dtype.is_floating_point else x, 0)
            y = patc.inclusive_scan(x)
            assert y.device == x.device and y.dtype == dtype and y.shape == (n,)
            assert_close(y, ref, dtype)
            e = patc.exclusive_scan(x)
            assert_close(e[1:], ref[:-1], dtype)
            assert e[0].item() == 0
            s = patc.reduce(x)
            assert s.dim() == 0 and s.device == x.device
            assert_close(s.reshape(1), ref[-1:], dtype)
            assert patc.reduce(x, "min").item() == x.min().item()
            assert patc.reduce(x, "max").item() == x.max().item()
            assert torch.equal(patc.inclusive_scan(x, "max").cpu(), torch.cummax(x, 0).values.cpu())


def test_unsigned_against_the_interpreter():
    for dt, npdt in ((getattr(torch, "uint32", None), "uint32"), (getattr(torch, "uint64", None), "uint64")):
        if dt is None:
            continue
        for n in (1, 33, 4097, 100003):
            h = np.random.default_rng(n).integers(0, 1000, n).astype(npdt)
            try:  # a uint32 tensor by reinterpreting int32 memory (torch 2.3 on)
                x = torch.from_numpy(h.view("int32" if npdt == "uint32" else "int64")).cuda().view(dt)
            except (RuntimeError, TypeError) as e:
                print("test_unsigned_against_the_interpreter: no %s tensors in this torch (%s)" % (npdt, e))
                break
            assert np.array_equal(patc.inclusive_scan(x).cpu().view(torch.int32 if npdt == "uint32" else torch.int64)
                                  .numpy().view(npdt), patc.inclusive_scan(h))
            assert int(patc.reduce(x, "max").cpu().view(torch.int32 if npdt == "uint32" else torch.int64)) == \
                int(h.max())


def test_torch_filter_and_partition():
    for dtype in (torch.float32, torch.float64, torch.int32, torch.int64):
        for n in SIZES:
            x = tdata(dtype, n)
            t = 0.5 if dtype.is_floating_point else 50
            mask = x > t
            got = patc.filter(x, "fun(x => x > t)", t=t)
            assert torch.equal(got, torch.masked_select(x, mask))
            for stable in (False, True):
                out, m = patc.partition(x, "fun(x => x > t)", t=t, stable=stable)
                assert m == int(mask.sum())
                assert torch.equal(out[:m], x[mask])
                rest = x[~mask]
                assert torch.equal(out[m:], rest if stable else rest.flip(0))
            o, cnt = patc.filter(x, "fun(x => x > t)", t=t, sync=False)
            assert o.shape == (n,) and cnt.dtype == torch.int32
            assert torch.equal(o[:int(cnt.item())], x[mask])
    # an operator and a predicate with scalars
    x = tdata(torch.float32, 4097)
    got = patc.inclusive_scan(x, "fun(a => fun(b => max(max(a)(b))(lo)))", init="-inff", lo=0.25)
    assert torch.equal(got, torch.cummax(x, 0).values.clamp(min=0.25))
    got = patc.filter(x, "fun(x => x > lo && x < hi)", lo=0.25, hi=0.5)
    assert torch.equal(got, x[(x > 0.25) & (x < 0.5)])


def test_torch_streams_and_out():
    x = tdata(torch.float32, 1 << 22)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())  # x is made on the default stream
    with torch.cuda.stream(s):  # the current stream: the scan is enqueued on s
        y = patc.inclusive_scan(x)
    s.synchronize()
    assert_close(y, torch.cumsum(x.double(), 0), torch.float32)
    out = torch.empty_like(x)
    r = patc.inclusive_scan(x, out=out, stream=s)
    s.synchronize()
    assert r is out
    assert_close(out, torch.cumsum(x.double(), 0), torch.float32)
    r = patc.inclusive_scan(x, stream=s.cuda_stream)
    s.synchronize()
    assert_close(r, torch.cumsum(x.double(), 0), torch.float32)
    # a filter on stream=: its count is read after that stream, not torch's current one
    for _ in range(3):
        kept = patc.filter(x, "fun(x => x > t)", t=0.5, stream=s)
        assert torch.equal(kept, x[x > 0.5])


# ---------------------------------------------------------------- kernels on torch


def test_torch_kernels():
    k = patc.compile(SAXPY).kernel("saxpy")
    for n in (1, 33, 1000, (1 << 20) + 7):
        xs, ys = tdata(torch.float32, n), tdata(torch.float32, n, seed=1)
        r = k(2.5, xs, ys, n=n)
        assert r.device == xs.device and r.dtype == torch.float32
        assert torch.allclose(r, 2.5 * xs + ys, rtol=1e-6)
        out = torch.empty(n, device="cuda")
        assert k(1.0, xs, ys, n=n, out=out) is out
        assert torch.allclose(out, xs + ys)
    mm = patc.compile(MINMAX).kernel("minmax")
    x = torch.randint(-100, 100, (33, 4), device="cuda", dtype=torch.int32)
    lo, hi, s = mm(x, m=33)
    assert torch.equal(lo, x.min(1).values) and torch.equal(hi, x.max(1).values) and torch.equal(s, x.sum(1, dtype=torch.int32))
    # the same kernel object on the CPU interpreter
    h = x.cpu().numpy()
    assert np.array_equal(mm(h, m=33)[2], h.sum(1))


def test_torch_errors():
    k = patc.compile(SAXPY).kernel("saxpy")
    x = torch.zeros(10, device="cuda")
    raises(patc.DtypeError, k, 1.0, x.double(), x, n=10)
    raises(patc.SizeError, k, 1.0, x[:9], x, n=10)
    raises(patc.ContiguityError, k, 1.0, torch.zeros(20, device="cuda")[::2], x, n=10)
    raises(patc.DeviceMismatchError, k, 1.0, x.cpu(), x, n=10)
    raises(patc.DeviceMismatchError, k, 1.0, x, x, n=10, out=torch.empty(10))
    raises(patc.DtypeError, patc.inclusive_scan, x.half())
    raises(patc.InvalidArgumentError, patc.inclusive_scan, x, out=x)  # overlap, refused by libpatrt
    e = raises(patc.CompileError, patc.filter, x, "fun(x => x + 1.0f)")
    assert "^" in str(e)


def test_protocols():
    """Objects seen only through __cuda_array_interface__ or __dlpack__."""
    class CAI:
        def __init__(self, t):
            self.__cuda_array_interface__ = t.__cuda_array_interface__
            self._t = t

    class DL:
        def __init__(self, t):
            self._t = t

        def __dlpack__(self, stream=None):
            return self._t.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self._t.__dlpack_device__()

    x = tdata(torch.float32, 4097)
    ref = torch.cumsum(x.double(), 0)
    for wrap in (CAI, DL):
        y = patc.inclusive_scan(wrap(x))  # an output of CuPy, or of PyTorch without it
        torch.cuda.synchronize()
        yt = torch.as_tensor(y, device="cuda") if cupy is None or not isinstance(y, cupy.ndarray) else \
            torch.from_dlpack(y)
        assert_close(yt, ref, torch.float32)
        out = torch.empty_like(x)
        patc.inclusive_scan(wrap(x), out=out)
        torch.cuda.synchronize()
        assert_close(out, ref, torch.float32)


def test_second_device():
    """A call on another device than the current one runs there and leaves torch's
    current device as it was (more than one GPU only)."""
    if torch.cuda.device_count() < 2:
        print("test_second_device: one GPU, nothing to test")
        return
    before = torch.cuda.current_device()
    other = 1 - before if before < 2 else 0
    x = tdata(torch.float32, 100003).to("cuda:%d" % other)
    y = patc.inclusive_scan(x)
    assert y.device == x.device and torch.cuda.current_device() == before
    assert_close(y, torch.cumsum(x.double(), 0), torch.float32)
    k = patc.compile(SAXPY).kernel("saxpy")
    assert torch.allclose(k(2.0, x, x, n=x.numel()), 3 * x)
    assert torch.cuda.current_device() == before


# ---------------------------------------------------------------- CuPy


def test_cupy():
    if cupy is None:
        if pytest is not None:
            pytest.skip("no CuPy")
        return
    for dt in ("float32", "float64", "int32", "uint32", "int64", "uint64"):
        for n in (1, 33, 4097, (1 << 20) + 7):
            h = np.random.default_rng(n).integers(0, 100, n).astype(dt) if "int" in dt else \
                np.random.default_rng(n).random(n).astype(dt)
            x = cupy.asarray(h)
            y = patc.inclusive_scan(x)
            assert isinstance(y, cupy.ndarray) and y.dtype == x.dtype
            want = patc.inclusive_scan(h)  # the interpreter's
            if "float" in dt:
                np.testing.assert_allclose(cupy.asnumpy(y), np.cumsum(h, dtype=np.float64),
                                           rtol=1e-3 if dt == "float32" else 1e-9)
            else:
                assert np.array_equal(cupy.asnumpy(y), want)
            assert cupy.asnumpy(patc.reduce(x, "max")) == h.max()
            t = 0.5 if "float" in dt else 50
            assert np.array_equal(cupy.asnumpy(patc.filter(x, "fun(x => x > t)", t=t)), h[h > t])
    k = patc.compile(SAXPY).kernel("saxpy")
    xs = cupy.arange(1000, dtype="float32")
    r = k(2.0, xs, xs, n=1000)
    assert isinstance(r, cupy.ndarray)
    assert np.array_equal(cupy.asnumpy(r), 3 * np.arange(1000, dtype="float32"))
    s = cupy.cuda.Stream(non_blocking=True)
    cupy.cuda.Stream.null.synchronize()  # xs is made on the null stream
    with s:
        r = patc.inclusive_scan(xs)
    s.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(r), np.cumsum(np.arange(1000.0)), rtol=1e-6)


def test_torch_and_cupy_sort():
    """patc.sort against torch.sort's values (and the interpreter's sort of the same keys,
    bit for bit, for float32's NaNs and zeros), and on CuPy arrays."""
    for dt in (torch.int32, torch.float32, torch.int64, torch.float64) + ((torch.uint32,) if hasattr(torch, "uint32") else ()):
        for n in SIZES:
            g = torch.Generator(device="cuda").manual_seed(n)
            if dt in (torch.float32, torch.float64):
                x = torch.rand(n, device="cuda", generator=g, dtype=dt) * 200 - 100
            elif dt == torch.int32:
                x = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=dt, generator=g)
            elif dt == torch.int64:
                x = torch.randint(-2**63, 2**63 - 1, (n,), device="cuda", dtype=dt, generator=g)
            else:
                x = torch.randint(0, 2**31 - 1, (n,), device="cuda", dtype=torch.int64, generator=g).to(dt)
            y = patc.sort(x)
            assert y.dtype == dt and y.shape == (n,)
            if dt == torch.uint32:
                assert np.array_equal(y.cpu().numpy(), np.sort(x.cpu().numpy()))
            else:
                assert torch.equal(y, torch.sort(x).values)
            z = x.clone()
            assert patc.sort(z, out=z) is z and torch.equal(z, y)
    # pairs and descending against torch.sort(stable=True): the permutation itself (the
    # indices carried as int64 values), so equal keys' order is checked too
    for dt in (torch.float32, torch.int64, torch.float64):
        for n in (1000, 4097, (1 << 20) + 7):
            g = torch.Generator(device="cuda").manual_seed(n)
            x = (torch.rand(n, device="cuda", generator=g) * 100).floor().to(dt)  # duplicates
            idx = torch.arange(n, device="cuda")
            for desc in (False, True):
                k, v = patc.sort_pairs(x, idx, descending=desc)
                ref = torch.sort(x, descending=desc, stable=True)
                assert torch.equal(k, ref.values) and torch.equal(v, ref.indices)
                assert torch.equal(patc.sort(x, descending=desc), ref.values)
    h = np.array([0.5, -0.0, float("nan"), -1.0, 0.0, float("inf"), -float("inf"), 2.0], dtype="float32")
    got = patc.sort(torch.from_numpy(h).cuda()).cpu().numpy()
    assert np.array_equal(got.view(np.uint32), patc.sort(h).view(np.uint32))  # the interpreter's
    if cupy is not None:
        c = cupy.asarray(np.random.default_rng(7).integers(0, 1000, 4097).astype("uint32"))
        r = patc.sort(c)
        assert isinstance(r, cupy.ndarray) and np.array_equal(cupy.asnumpy(r), np.sort(cupy.asnumpy(c)))


# ---------------------------------------------------------------- the call's overhead


def test_call_overhead_is_measured():
    """Prints the host time of a small kernel's call (the goal: under 10 us), beside
    torch's own op of the same size; asserts only that it is below 100 us."""
    k = patc.compile(SAXPY).kernel("saxpy")
    xs = torch.rand(1024, device="cuda")
    out = torch.empty_like(xs)
    for _ in range(100):
        k(2.0, xs, xs, n=1024, out=out)
        torch.add(xs, xs, out=out)
    torch.cuda.synchronize()
    reps = 2000
    t0 = time.perf_counter()
    for _ in range(reps):
        k(2.0, xs, xs, n=1024, out=out)
    t1 = time.perf_counter()
    for _ in range(reps):
        k(2.0, xs, xs, n=1024)
    t2 = time.perf_counter()
    for _ in range(reps):
        torch.add(xs, xs, out=out)
    t3 = time.perf_counter()
    torch.cuda.synchronize()
    us = lambda a, b: (b - a) / reps * 1e6
    print("\ncall overhead (%s path): patc kernel %.2f us (out=), %.2f us (allocating); torch.add %.2f us"
          % (_path[0], us(t0, t1), us(t1, t2), us(t2, t3)))
    assert us(t0, t1) < 100


if __name__ == "__main__":
    if not HAVE_GPU:
        print("test_gpu.py: no PyTorch or no CUDA GPU: skipped")
        print("0 passed, 0 failed, 1 skipped")
        sys.exit(0)
    passed = failed = 0
    for name, fn in sorted(globals().items()):
        for p in PATHS if name.startswith("test_") and callable(fn) else ():
            use_path(p)
            try:
                fn()
                passed += 1
                print("PASS", name, p)
            except Exception as e:  # report every test, then fail
                failed += 1
                print("FAIL", name, p, type(e).__name__, e)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
