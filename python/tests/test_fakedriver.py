"""The GPU path's host side against tests/fakecuda, the project's stand-in libcuda.so.1
(which checks launches and runs no kernel): buffers wrapped from
__cuda_array_interface__ objects, launches on a stream, the ready-made calls through
patc_algo_enqueue_ptr, the checks before a launch, and the host time of a call.

Runs when $PATC_FAKECUDA names that library (scripts/python_test.sh sets it from the
build's build/runtime/fakecuda/libcuda.so.1); it is loaded before libpatrt opens the
driver, so libpatrt's dlopen("libcuda.so.1") finds it by its soname. Needs NVRTC (the
GPU program is compiled to a cubin). Whether the kernels compute the right thing is
test_gpu.py's question, on a GPU.

Where the package has patc._fast (python/_fast.c), every test runs twice: on the C path
and on the ctypes path (the C path switched off); test_c_path_launches_the_same checks
that both hand the driver the same launches.
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
from patc import _core  # noqa: E402

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


_C_PATH = (_core._fast_kernel, _core._fast_algo, _core._fast_sort, _core._fast_select)


def use_c_path(monkeypatch, on):
    for name, f in zip(("_fast_kernel", "_fast_algo", "_fast_sort", "_fast_select"), _C_PATH):
        monkeypatch.setattr(_core, name, f if on else None)


@pytest.fixture(autouse=True, params=["c", "ctypes"])
def call_path(request, monkeypatch):
    """Each test on patc._fast's C path and on the ctypes path."""
    if request.param == "c" and _C_PATH[0] is None:
        pytest.skip("the package has no patc._fast (built without Python's headers, or PATC_PURE_PYTHON=1)")
    use_c_path(monkeypatch, request.param == "c")
    return request.param


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
    assert patc.inclusive_scan(x, out=out) is out  # the context's lock was given back
    with pytest.raises(patc.DtypeError):
        patc.inclusive_scan(x, out=Dev(n, "<i4"))
    with pytest.raises(patc.SizeError):
        patc.inclusive_scan(x, out=Dev(n + 1))
    with pytest.raises(patc.ContiguityError):
        patc.inclusive_scan(Dev(n, strides=(8,)), out=out)
    with pytest.raises(patc.InvalidArgumentError, match="init="):
        patc.inclusive_scan(x, "max", init="0.0f", out=out)


def test_sort_enqueues():
    """patc.sort on __cuda_array_interface__ arrays: the five launches enqueued through
    patc_sort_keys_ptr (the stand-in driver checks them), to another array and in place."""
    for typestr in ("<u4", "<i4", "<f4", "<u8", "<i8", "<f8"):
        sz = int(typestr[2])
        x, out = Dev(5000, typestr, sz), Dev(5000, typestr, sz)
        assert patc.sort(x, out=out) is out
        assert patc.sort(x, out=x) is x
    with pytest.raises(patc.DtypeError):
        patc.sort(Dev(10, "|b1", 1), out=Dev(10, "|b1", 1))
    # descending, and pairs of 4- and 8-byte keys and values, out of place and in place
    x, out = Dev(5000, "<f4"), Dev(5000, "<f4")
    assert patc.sort(x, out=out, descending=True) is out
    for kt, vt in (("<f4", "<u4"), ("<u8", "<f8"), ("<i4", "<i8")):
        k, v = Dev(9001, kt, int(kt[2])), Dev(9001, vt, int(vt[2]))
        ko, vo = Dev(9001, kt, int(kt[2])), Dev(9001, vt, int(vt[2]))
        r = patc.sort_pairs(k, v, keys_out=ko, values_out=vo, descending=kt == "<u8")
        assert r[0] is ko and r[1] is vo
        r = patc.sort_pairs(k, v, keys_out=k, values_out=v)
        assert r[0] is k and r[1] is v
    with pytest.raises(patc.SizeError):
        patc.sort_pairs(Dev(10, "<f4"), Dev(11, "<u4"), keys_out=Dev(10, "<f4"), values_out=Dev(11, "<u4"))


def test_wraps_kept_for_the_launch(call_path):
    """A context keeps at most 1024 wraps and frees them all when a launch would take it
    past that: before the launch's first wrap, never between two of them (which would
    free a wrap the launch then reads)."""
    k = patc.compile(SAXPY).kernel("saxpy")
    n = 16
    x, y = Dev(n), Dev(n)
    k(2.0, x, y, n=n, out=Dev(n))
    ctx = k._gk[0][0]
    mem = Dev(1024)
    base = mem.__cuda_array_interface__["data"][0]
    with ctx.lock:  # one place left: the next launch (y kept, a new x and out) needs two
        for i in range(1023 - len(ctx.wraps)):
            ctx.wrap(base + 4 * i, 4)
    assert len(ctx.wraps) == 1023
    out = Dev(n)
    x2 = Dev(n)
    k(2.0, x2, y, n=n, out=out)
    keys = {(x2.__cuda_array_interface__["data"][0], 4 * n), (y.__cuda_array_interface__["data"][0], 4 * n),
            (out.__cuda_array_interface__["data"][0], 4 * n)}
    assert set(ctx.wraps) == keys


class _Launch(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared", ctypes.c_uint), ("stream", ctypes.c_void_p), ("args", ctypes.POINTER(ctypes.c_void_p))]


_HOOK = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Launch), ctypes.c_void_p)


def _stream():
    """A stream of the stand-in driver, as an int."""
    s = ctypes.c_void_p()
    assert _drv.cuStreamCreate(ctypes.byref(s), 0) == 0
    return s.value


def _record(calls, arg_bytes=None):
    """The launches the driver accepted during calls(): (name, grid, block, shared,
    stream, and, with arg_bytes = (name prefix, sizes), the bytes of the first parameters
    of that kernel's launches)."""
    seen = []

    def hook(lp, ud):
        L = lp.contents
        args = ()
        if arg_bytes and L.name.startswith(arg_bytes[0]):
            args = tuple(ctypes.string_at(L.args[i], b) for i, b in enumerate(arg_bytes[1]))
        seen.append((L.name, tuple(L.grid), tuple(L.block), L.shared, L.stream, args))
    h = _HOOK(hook)
    _drv.fakecuda_on_launch(h, None)
    try:
        calls()
    finally:
        _drv.fakecuda_on_launch(None, None)
    return seen


def test_c_path_launches_the_same(monkeypatch, call_path):
    """The C path and the ctypes path give the driver the same launches: kernels' grids,
    streams and arguments (saxpy's: out, a, xs, ys, n), the ready-made calls' and the
    sort's launches (the one launch of up to 8192 keys, and the five of more)."""
    if call_path == "ctypes":
        pytest.skip("compares the two paths once")
    k = patc.compile(SAXPY).kernel("saxpy")
    n = 1000
    x, y, out, u, uo = Dev(n), Dev(n), Dev(n), Dev(n, "<u4"), Dev(n, "<u4")
    ub, ubo = Dev(10000, "<u4"), Dev(10000, "<u4")
    r, cnt = Dev(1), Dev(1, "<u4")
    st = _stream()

    def calls():
        k(2.5, x, y, n=n, out=out)
        k(3, x, y, n=n, out=out, stream=st)  # an int for an f32
        patc.reduce(x, out=r)
        patc.inclusive_scan(x, out=out, stream=st)
        patc.exclusive_scan(x, "max", out=out)
        patc.sort(u, out=uo)
        patc.sort(ub, out=ubo)
        patc.filter(x, "fun(x => x > t)", t=0.5, out=out, count=cnt, sync=False)
        patc.filter(x, "fun(x => x > t)", t=2, out=out, count=cnt, sync=False, stream=st)  # an int for an f32
        patc.partition(x, "fun(x => x > a && x < b)", b=0.75, a=0.25, out=out, count=cnt, sync=False, stable=True)
        patc.filter(x, "fun(x => x > 0.5f)", out=out, count=cnt, sync=False)
    calls()  # the programs, plans and sorters made, on the Python path
    got = {}
    for c in (True, False):
        use_c_path(monkeypatch, c)
        got[c] = _record(calls, (b"saxpy", (8, 4, 8, 8, 4)))
    assert got[True] == got[False]
    names = [g[0] for g in got[True]]
    assert len(got[True]) >= 16 and got[True][1][4] == st
    # (the sort of 10000 u32 keys: its histogram, in 16-byte vectors since cuMemAlloc's
    # buffers are 16-byte aligned, then four passes of 512 x 16 keys, sortPassB0)
    assert names.count(b"sortSmall0") == 1 and names.count(b"sortHistScanV") == 1 and names.count(b"sortPassB0") == 4
    saxpy = [g for g in got[True] if g[0].startswith(b"saxpy")]
    assert [g[5][1] for g in saxpy] == [bytes(ctypes.c_float(2.5)), bytes(ctypes.c_float(3.0))]


def test_c_path_taken(monkeypatch, call_path):
    """With patc._fast, a small call that passes its checks never reaches the Python
    path (which is made to fail here), and one that fails a check is raised by it."""
    if call_path == "ctypes":
        pytest.skip("the C path only")
    k = patc.compile(SAXPY).kernel("saxpy")
    n = 1000
    x, y, out, r, u = Dev(n), Dev(n), Dev(n), Dev(1), Dev(n, "<u4")
    k(2.0, x, y, n=n, out=out)
    patc.reduce(x, out=r)
    patc.inclusive_scan(x, out=out)
    patc.exclusive_scan(x, out=out)
    patc.sort(u, out=Dev(n, "<u4"))
    cnt = Dev(1, "<u4")
    patc.filter(x, "fun(x => x > t)", t=0.5, out=out, count=cnt, sync=False)
    patc.partition(x, "fun(x => x > t)", t=0.5, out=out, count=cnt, sync=False)

    def no(*a, **k):
        raise AssertionError("the Python path was taken")
    monkeypatch.setattr(_core.Kernel, "_enqueue", no)
    monkeypatch.setattr(_core, "_algo", no)
    monkeypatch.setattr(_core, "_algo_ctx", no)
    assert k(2.0, x, y, n=n, out=out) is out
    assert k(2, x, y, n=n, out=out, stream=_stream()) is out
    assert patc.reduce(x, out=r) is r
    assert patc.inclusive_scan(x, out=out) is out
    assert patc.exclusive_scan(x, out=out) is out
    uo = Dev(n, "<u4")
    assert patc.sort(u, out=uo) is uo
    assert patc.filter(x, "fun(x => x > t)", t=0.25, out=out, count=cnt, sync=False) == (out, cnt)
    assert patc.partition(x, "fun(x => x > t)", t=1, out=out, count=cnt, sync=False) == (out, cnt)
    with pytest.raises(AssertionError, match="Python path"):
        patc.filter(x, "fun(x => x > t)", t=0.5, out=out, count=Dev(1, "<f4"), sync=False)  # the Python path raises
    with pytest.raises(AssertionError, match="Python path"):
        k(2.0, Dev(n + 1), Dev(n + 1), n=n + 1, out=Dev(n + 1))  # a size not seen yet: the Python path's
    monkeypatch.undo()
    use_c_path(monkeypatch, True)
    with pytest.raises(patc.SizeError):
        k(2.0, x, y, n=n, out=Dev(n - 1))
    with pytest.raises(patc.DtypeError):
        k(2.0, x, Dev(n, "<i4"), n=n, out=out)
    with pytest.raises(patc.DtypeError):
        k("a", x, y, n=n, out=out)
    with pytest.raises(patc.ArrayError, match="count="):
        patc.filter(x, "fun(x => x > t)", t=0.5, out=out, count=Dev(1, "<f4"), sync=False)
    with pytest.raises(patc.DtypeError):
        patc.filter(x, "fun(x => x > t)", t="a", out=out, count=cnt, sync=False)
    with pytest.raises(patc.InvalidArgumentError, match="at most 4"):
        patc.filter(x, "fun(x => x > t)", t=1.0, a=1.0, b=1.0, c=1.0, d=1.0, out=out, count=cnt, sync=False)


class _TorchLike:
    """A stand-in for a CUDA torch.Tensor, handed to patc._fast as PyTorch's tensor type
    (set_torch): the methods and attribute the C path reads of a tensor, over the
    stand-in driver's memory."""

    def __init__(self, n):
        self.dev = Dev(max(n, 1))
        self.n = n
        self.dtype = "f4"

    def data_ptr(self):
        return self.dev.__cuda_array_interface__["data"][0]

    def numel(self):
        return self.n

    def is_contiguous(self):
        return True

    def get_device(self):
        return 0

    def new_empty(self, shape):
        return _TorchLike(shape if isinstance(shape, int) else 1)


def test_c_path_torch_tensors(monkeypatch, call_path):
    """The C path's PyTorch branch (python/_fast.c describe_torch, new_empty, the current
    stream asked of PyTorch, results allocated) on tensor-like objects: the launches are
    those of the same calls on __cuda_array_interface__ arrays at the same addresses."""
    if call_path == "ctypes":
        pytest.skip("the C path only")
    from patc import _arrays, _lib
    n = 1000
    st = _stream()
    k = patc.compile(SAXPY).kernel("saxpy")
    x, y, out, r = _TorchLike(n), _TorchLike(n), _TorchLike(n), _TorchLike(1)

    def cai(t):  # the same memory as a __cuda_array_interface__ array
        d = Dev(0)
        d.__cuda_array_interface__ = dict(t.dev.__cuda_array_interface__, shape=(max(t.n, 1),))
        return d
    made = []

    def empty(lib, t, count, dev):
        assert lib == _arrays.TORCH and t == _lib.F32 and dev == 0
        made.append(_TorchLike(count))
        return made[-1]

    def calls_cai():
        k(2.0, cai(x), cai(y), n=n, out=cai(out), stream=st)
        patc.reduce(cai(x), out=cai(r), stream=st)
        patc.inclusive_scan(cai(x), out=cai(out), stream=st)
    calls_cai()  # the shapes, kernels and plans, made by the Python path
    patc.filter(cai(x), "fun(x => x > t)", t=0.5, out=cai(out), count=Dev(1, "<i4"), stream=st, sync=False)
    want = _record(calls_cai, (b"saxpy", (8, 4, 8, 8, 4)))
    monkeypatch.setattr(_arrays, "empty", empty)
    monkeypatch.setitem(_arrays._multi, _arrays.TORCH, False)
    monkeypatch.setattr(_core, "_algo", None)  # the Python path would fail: not taken
    monkeypatch.setattr(_core.Kernel, "_enqueue", None)
    _lib._fast.set_torch(_TorchLike, {"f4": _lib.F32}, lambda dev: st)
    try:
        res = []

        def calls_torch():
            res.append(k(2.0, x, y, n=n, out=out))
            res.append(patc.reduce(x, out=r))
            res.append(patc.inclusive_scan(x, out=out))
        got = _record(calls_torch, (b"saxpy", (8, 4, 8, 8, 4)))
        assert got == want and res == [out, r, out]
        # results made by the first input's new_empty (its dtype is the output's)
        got = _record(lambda: res.extend([k(2.0, x, y, n=n), patc.reduce(x), patc.inclusive_scan(x)]),
                      (b"saxpy", (8, 4, 8, 8, 4)))
        assert made == [] and all(isinstance(o, _TorchLike) for o in res[3:]) and [o.n for o in res[3:]] == [n, 1, n]
        assert got[0][5][0] == res[3].data_ptr().to_bytes(8, "little")
        assert all(g[4] == st for g in got)
        # a filter: its count made by _arrays.count_array, the result _core._result's
        counts = []

        def count_array(lib, dev):
            c = _TorchLike(1)
            c.dtype = "i4"
            counts.append(c)
            return c
        monkeypatch.setattr(_arrays, "count_array", count_array)
        _lib._fast.set_torch(_TorchLike, {"f4": _lib.F32, "i4": _lib.I32}, lambda dev: st)
        monkeypatch.setattr(_core, "_result", lambda alg, o, cnt, lib, sync, dev, given, stream: (o, cnt, sync, given))
        o, c, sync, given = patc.filter(x, "fun(x => x > t)", t=0.5, sync=False)
        assert c is counts[0] and isinstance(o, _TorchLike) and o.n == n and sync is False and given is False
    finally:  # PyTorch's own, where this process has seen it, else none
        if _arrays._torch is not None:
            _arrays._init_torch(_arrays._torch)
        else:
            _lib._fast.set_torch(None, {}, None)


class _CupyLike:
    """A stand-in for a cupy.ndarray, handed to patc._fast as CuPy's array type
    (set_cupy): the attributes the C path reads of an array."""

    def __init__(self, n, dtype="f4"):
        import types
        self.dev = Dev(max(n, 1), "<" + dtype, 4)
        self.size, self.dtype = n, dtype
        self.data = types.SimpleNamespace(ptr=self.dev.__cuda_array_interface__["data"][0])
        self.flags = types.SimpleNamespace(c_contiguous=True)
        self.device = types.SimpleNamespace(id=0)


def test_c_path_cupy_arrays(monkeypatch, call_path):
    """The C path's CuPy branch (python/_fast.c describe_cupy, CuPy's current stream,
    results and counts made by _arrays.empty) on array-like objects: the launches are
    those of the same calls on __cuda_array_interface__ arrays at the same addresses."""
    if call_path == "ctypes":
        pytest.skip("the C path only")
    from patc import _arrays, _lib
    n = 1000
    st = _stream()
    k = patc.compile(SAXPY).kernel("saxpy")
    x, y, out, r, cnt = _CupyLike(n), _CupyLike(n), _CupyLike(n), _CupyLike(1), _CupyLike(1, "u4")

    def cai(a):  # the same memory as a __cuda_array_interface__ array
        d = Dev(0)
        d.__cuda_array_interface__ = dict(a.dev.__cuda_array_interface__, shape=(max(a.size, 1),))
        return d

    def calls(f):
        k(2.0, f(x), f(y), n=n, out=f(out))
        patc.reduce(f(x), out=f(r))
        patc.inclusive_scan(f(x), out=f(out))
        patc.filter(f(x), "fun(x => x > t)", t=0.5, out=f(out), count=f(cnt), sync=False)

    def calls_cai():
        k(2.0, cai(x), cai(y), n=n, out=cai(out), stream=st)
        patc.reduce(cai(x), out=cai(r), stream=st)
        patc.inclusive_scan(cai(x), out=cai(out), stream=st)
        patc.filter(cai(x), "fun(x => x > t)", t=0.5, out=cai(out), count=cai(cnt), stream=st, sync=False)
    calls_cai()  # the shapes, kernels and plans, made by the Python path
    want = _record(calls_cai, (b"saxpy", (8, 4, 8, 8, 4)))
    made = []

    def empty(lib, t, count, dev):
        assert lib == _arrays.CUPY and dev == 0
        made.append(_CupyLike(1 if count == () else count, "f4" if t == _lib.F32 else "u4"))
        return made[-1]
    monkeypatch.setattr(_arrays, "empty", empty)
    monkeypatch.setitem(_arrays._multi, _arrays.CUPY, False)
    monkeypatch.setattr(_core, "_algo", None)  # the Python path would fail: not taken
    monkeypatch.setattr(_core.Kernel, "_enqueue", None)
    _lib._fast.set_cupy(_CupyLike, {"f4": _lib.F32, "u4": _lib.U32}, lambda dev: st)
    try:
        got = _record(lambda: calls(lambda a: a), (b"saxpy", (8, 4, 8, 8, 4)))
        assert got == want
        res = [k(2.0, x, y, n=n), patc.reduce(x), patc.inclusive_scan(x)]
        assert res == made[:3] and made[1].size == 1 and made[2].size == n
        o, c = patc.filter(x, "fun(x => x > t)", t=0.5, sync=False)  # the count made by count_array
        assert o is made[3] and c is made[4] and c.dtype == "u4"
    finally:  # CuPy's own, where this process has seen it, else none
        if _arrays._cupy is not None:
            _arrays._init_cupy(_arrays._cupy)
        else:
            _lib._fast.set_cupy(None, {}, None)


def test_call_overhead(capsys, call_path):
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
        print("\nhost time of a call (stand-in driver, %s path): kernel %.2f us, inclusive_scan %.2f us"
              % (call_path, (t1 - t0) / reps * 1e6, (t3 - t2) / reps * 1e6))
    assert (t1 - t0) / reps < 1e-3
