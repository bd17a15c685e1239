"""The patc package on the CPU interpreter (NumPy arrays): no GPU, no NVRTC.

Expected values come from NumPy (cumsum, sum, min, max, boolean masks), never from patc.
"""
import os
import pathlib

import numpy as np
import pytest

import patc
from programs import MINMAX, SAXPY  # the tests' folder is on sys.path

ROOT = pathlib.Path(__file__).resolve().parents[2]
SIZES = [1, 2, 31, 33, 1000, 4097, 100003]
DTYPES = ["float32", "float64", "int32", "uint32", "int64", "uint64"]

BAD = """kernel bad = nFun(n =>
  fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * undefined_name))))
"""


def data(dtype, n, seed=1):
    rng = np.random.default_rng(seed + n)
    if dtype.startswith("float"):
        return rng.random(n).astype(dtype)
    return rng.integers(0, 100, n).astype(dtype)


def close(dtype):
    return dict(rtol=1e-4 if dtype == "float32" else 1e-10, atol=1e-3 if dtype == "float32" else 1e-9)


# ---------------------------------------------------------------- ready-made algorithms


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_inclusive_scan_sum(dtype, n):
    x = data(dtype, n)
    got = patc.inclusive_scan(x)
    assert got.dtype == x.dtype and got.shape == (n,)
    want = np.cumsum(x, dtype=np.float64 if dtype.startswith("float") else x.dtype)
    if dtype.startswith("float"):
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == "float32" else 1e-12)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 33, 4097])
def test_exclusive_scan_sum(dtype, n):
    x = data(dtype, n)
    got = patc.exclusive_scan(x)
    want = np.concatenate([[0], np.cumsum(x, dtype=np.float64 if dtype.startswith("float") else x.dtype)[:-1]])
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), **close(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["min", "max"])
def test_scans_min_max(dtype, op):
    x = data(dtype, 1000)
    acc = np.minimum if op == "min" else np.maximum
    np.testing.assert_array_equal(patc.inclusive_scan(x, op), acc.accumulate(x))
    ex = patc.exclusive_scan(x, op)
    np.testing.assert_array_equal(ex[1:], acc.accumulate(x)[:-1])
    if dtype.startswith("float"):
        assert ex[0] == (np.inf if op == "min" else -np.inf)
    else:
        info = np.iinfo(dtype)
        assert ex[0] == (info.max if op == "min" else info.min)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_reduce(dtype, n):
    x = data(dtype, n)
    s = patc.reduce(x)
    assert isinstance(s, np.generic) and s.dtype == x.dtype
    if dtype.startswith("float"):
        assert s == pytest.approx(float(np.sum(x, dtype=np.float64)), rel=1e-5 if dtype == "float32" else 1e-12)
    else:
        assert s == np.sum(x, dtype=x.dtype)
    assert patc.reduce(x, "min") == x.min()
    assert patc.reduce(x, "max") == x.max()


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_mul_and_lambda(dtype):
    x = np.arange(1, 11, dtype=dtype)
    assert patc.reduce(x, "mul") == 3628800
    big = "-inf" if dtype == "float64" else "-inff" if dtype == "float32" else \
        {"int32": "0 - 2147483647 - 1", "uint32": "0u", "int64": "i64(0)", "uint64": "u64(0)"}[dtype]
    lam = patc.reduce(x[::-1].copy(), "fun(a => fun(b => max(a)(b)))", init=big)
    assert lam == 10


def test_lambda_with_scalar():
    # max with a floor: associative (and idempotent), the floor a scalar given by keyword
    x = data("float32", 4097)
    got = patc.inclusive_scan(x, "fun(a => fun(b => max(max(a)(b))(lo)))", init="-inff", lo=0.25)
    np.testing.assert_array_equal(got, np.maximum(np.maximum.accumulate(x), np.float32(0.25)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_filter(dtype, n):
    x = data(dtype, n)
    t = 0.5 if dtype.startswith("float") else 50
    got = patc.filter(x, "fun(x => x > t)", t=t)
    np.testing.assert_array_equal(got, x[x > t])
    assert got.dtype == x.dtype


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint32"])
@pytest.mark.parametrize("n", [1, 33, 4097, 100003])
@pytest.mark.parametrize("stable", [False, True])
def test_partition(dtype, n, stable):
    x = data(dtype, n)
    t = 0.3 if dtype.startswith("float") else 30
    out, m = patc.partition(x, "fun(x => x < t)", stable=stable, t=t)
    sel = x < t
    assert m == int(sel.sum())
    np.testing.assert_array_equal(out[:m], x[sel])
    rest = x[~sel]
    np.testing.assert_array_equal(out[m:], rest if stable else rest[::-1])


def test_filter_two_scalars_and_types():
    x = np.arange(100, dtype="i4")
    got = patc.filter(x, "fun(x => x >= lo && x < hi)", lo=10, hi=20)
    np.testing.assert_array_equal(got, np.arange(10, 20))
    got = patc.filter(np.linspace(0, 1, 11).astype("f4"), "fun(x => x > f32(k) * 0.1f)", k=7,
                      scalar_types={"k": "i32"})
    assert len(got) == 3


def test_filter_unsynced_and_out():
    x = np.arange(10, dtype="f4")
    out = np.zeros(10, dtype="f4")
    o, cnt = patc.filter(x, "fun(x => x > 6.0f)", out=out, sync=False)
    assert o is out and cnt.dtype == np.uint32 and cnt[0] == 3
    np.testing.assert_array_equal(out[:3], [7, 8, 9])
    res = np.empty(10, dtype="f4")
    assert patc.inclusive_scan(x, out=res) is res
    np.testing.assert_array_equal(res, np.cumsum(x))


def test_empty_inputs():
    e = np.empty(0, dtype="f4")
    assert patc.reduce(e) == 0
    assert patc.inclusive_scan(e).shape == (0,)
    assert patc.filter(e, "fun(x => x > 0.0f)").shape == (0,)
    with pytest.raises(patc.InvalidArgumentError):
        patc.reduce(e, "max")


def test_algorithm_errors():
    x = np.arange(8, dtype="f4")
    with pytest.raises(patc.DtypeError, match="float16"):
        patc.inclusive_scan(x.astype("f2"))
    with pytest.raises(patc.DtypeError, match="bool"):
        patc.reduce(np.ones(4, dtype=bool))
    with pytest.raises(patc.ContiguityError):
        patc.inclusive_scan(x[::2])
    with pytest.raises(patc.InvalidArgumentError, match="op="):
        patc.reduce(x, "median")
    with pytest.raises(patc.InvalidArgumentError, match="init="):
        patc.reduce(x, "fun(a => fun(b => a + b))")
    with pytest.raises(patc.SizeError):
        patc.inclusive_scan(x, out=np.empty(7, dtype="f4"))
    with pytest.raises(patc.DtypeError):
        patc.inclusive_scan(x, out=np.empty(8, dtype="f8"))
    # a predicate that does not type-check: patc's diagnostics, pointing into the program
    with pytest.raises(patc.CompileError) as e:
        patc.filter(x, "fun(x => x + 1.0f)")
    assert e.value.status == "PATC_ERR_COMPILE"
    assert "<patc_algo>:" in str(e.value) and "^" in str(e.value)
    with pytest.raises(patc.CompileError):
        patc.filter(x, "fun(x => x > t)")  # t undeclared
    with pytest.raises(patc.DtypeError):
        patc.filter(np.arange(4, dtype="i4"), "fun(x => x > t)", t=0.5)
    with pytest.raises(patc.SizeError):
        patc.filter(np.arange(4, dtype="i4"), "fun(x => x > t)", t=2**40)


def sort_reference(x):
    """x sorted stably by the sort's order, written here: for float32, CUB's (by the
    order bits: -0.0 as +0.0, a negative key's bits complemented, a positive key's sign
    bit set)."""
    if x.dtype == np.float32:
        b = x.view(np.uint32).astype(np.uint64)
        b = np.where(b == 0x80000000, 0, b)
        o = np.where(b & 0x80000000, 0xFFFFFFFF ^ b, b | 0x80000000)
        return x[np.argsort(o, kind="stable")]
    if x.dtype == np.float64:
        top = np.uint64(1 << 63)
        b = x.view(np.uint64)
        b = np.where(b == top, np.uint64(0), b)
        o = np.where(b & top, ~b, b | top)
        return x[np.argsort(o, kind="stable")]
    return np.sort(x, kind="stable")


def bits_of(x):
    return x.view(np.uint64 if x.dtype.itemsize == 8 else np.uint32)


@pytest.mark.parametrize("dtype", ["uint32", "int32", "float32", "uint64", "int64", "float64"])
@pytest.mark.parametrize("n", [1, 31, 33, 1000, 4097])
def test_sort(dtype, n):
    rng = np.random.default_rng(n)
    if dtype.startswith("float"):
        x = (rng.random(n) * 200 - 100).astype(dtype)
    else:
        x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, n, dtype=dtype, endpoint=True)
    y = patc.sort(x)
    assert y.dtype == x.dtype and y.shape == (n,)
    assert np.array_equal(bits_of(y), bits_of(sort_reference(x)))
    few = x & x[::-1] if not dtype.startswith("float") else np.round(x / 50).astype(dtype)  # few unique values
    assert np.array_equal(bits_of(patc.sort(few)), bits_of(sort_reference(few)))


def test_sort_float64_special_keys():
    nan, inf = float("nan"), float("inf")
    f = np.array([0.5, -0.0, nan, -1.0, 0.0, inf, -inf, 2.0, -0.0, 5e-324, -5e-324, -nan], dtype="float64")
    got = patc.sort(f)
    assert np.array_equal(bits_of(got), bits_of(sort_reference(f)))
    assert np.isnan(got[0]) and np.signbit(got[0]) and np.isnan(got[-1]) and not np.signbit(got[-1])
    assert [bool(np.signbit(z)) for z in got[got == 0]] == [True, False, True]


def test_sort_special_keys_out_and_in_place():
    nan, inf = float("nan"), float("inf")
    f = np.array([0.5, -0.0, nan, -1.0, 0.0, inf, -inf, 2.0, -0.0, 1e-45, -1e-45], dtype="float32")
    neg_nan = np.array([0xFFC00000], dtype=np.uint32).view(np.float32)
    f = np.concatenate([f, neg_nan])
    got = patc.sort(f)
    assert np.array_equal(got.view(np.uint32), sort_reference(f).view(np.uint32))
    assert np.isnan(got[0]) and np.signbit(got[0]) and np.isnan(got[-1]) and not np.signbit(got[-1])
    # -0.0 and +0.0 are equals, in their input order
    zeros = got[(got == 0)]
    assert [bool(np.signbit(z)) for z in zeros] == [True, False, True]
    i = np.array([5, -3, 2**31 - 1, -2**31, 0, -3], dtype="int32")
    out = np.empty_like(i)
    assert patc.sort(i, out=out) is out
    assert out.tolist() == [-2**31, -3, -3, 0, 5, 2**31 - 1]
    u = np.arange(1000, dtype="uint32")[::-1].copy()
    assert patc.sort(u, out=u) is u  # in place
    assert np.array_equal(u, np.arange(1000, dtype="uint32"))
    assert patc.sort(np.zeros(0, dtype="float32")).shape == (0,)


def order_of(x):
    """The sort's order bits of x as uint64, written here (floats: -0.0 as +0.0, a
    negative key's bits complemented, a positive key's sign bit set)."""
    w = x.dtype.itemsize * 8
    top = np.uint64(1 << (w - 1))
    b = bits_of(x).astype(np.uint64)
    if x.dtype.kind == "u":
        return b
    if x.dtype.kind == "i":
        return b ^ top
    full = np.uint64((1 << w) - 1)
    b = np.where(b == top, np.uint64(0), b)
    return np.where(b & top, full ^ b, b | top)


@pytest.mark.parametrize("kt,vt", [("float32", "uint32"), ("int64", "float64"), ("uint32", "int64"),
                                   ("float64", "int32")])
@pytest.mark.parametrize("n", [1, 33, 1000, 9001])
@pytest.mark.parametrize("desc", [False, True])
def test_sort_pairs_and_descending(kt, vt, n, desc):
    rng = np.random.default_rng(n + len(kt))
    if kt.startswith("float"):
        k = np.round(rng.random(n) * 40 - 20).astype(kt)  # duplicates: the order among equals is checked
        k[::7] = -0.0
    else:
        k = rng.integers(np.iinfo(kt).min, np.iinfo(kt).max, n, dtype=kt, endpoint=True) & kt_mask(kt)
    v = np.arange(n).astype(vt)
    o = order_of(k)
    if desc:
        o = ~o if k.dtype.itemsize == 8 else np.uint64(0xFFFFFFFF) ^ o
    want = np.argsort(o, kind="stable")  # stable: equal keys in input order, either direction
    gk, gv = patc.sort_pairs(k, v, descending=desc)
    assert gk.dtype == k.dtype and gv.dtype == v.dtype
    assert np.array_equal(bits_of(gk), bits_of(k[want]))
    assert np.array_equal(gv, v[want])
    assert np.array_equal(bits_of(patc.sort(k, descending=desc)), bits_of(k[want]))
    # in place
    k2, v2 = k.copy(), v.copy()
    r = patc.sort_pairs(k2, v2, descending=desc, keys_out=k2, values_out=v2)
    assert r[0] is k2 and r[1] is v2 and np.array_equal(v2, v[want])


def kt_mask(kt):
    """The low 16 bits of random words cleared: equal keys among 1000 and more."""
    return np.iinfo(kt).max ^ 0xFFFF if kt.startswith("u") else -65536


def test_sort_pairs_errors():
    k = np.zeros(4, dtype="uint32")
    with pytest.raises(patc.SizeError):
        patc.sort_pairs(k, np.zeros(5, dtype="uint32"))
    with pytest.raises(patc.DtypeError):
        patc.sort_pairs(k, np.zeros(4, dtype="bool"))
    with pytest.raises(patc.DtypeError):
        patc.sort_pairs(k, np.zeros(4, dtype="uint32"), values_out=np.zeros(4, dtype="int32"))


def test_sort_errors():
    with pytest.raises(patc.DtypeError, match="uint32, int32, float32, uint64, int64 and float64"):
        patc.sort(np.zeros(3, dtype="bool"))
    with pytest.raises(patc.ContiguityError):
        patc.sort(np.zeros(8, dtype="uint32")[::2])
    with pytest.raises(patc.SizeError):
        patc.sort(np.zeros(4, dtype="uint32"), out=np.zeros(5, dtype="uint32"))
    with pytest.raises(patc.DtypeError):
        patc.sort(np.zeros(4, dtype="uint32"), out=np.zeros(4, dtype="int32"))
    with pytest.raises(patc.ArrayError):
        patc.sort([3, 1, 2, "x"])


def test_describe_algorithm():
    assert "scan." in patc.describe_algorithm("inclusive_scan", "float32", 1 << 20)


# ---------------------------------------------------------------- kernels


def test_saxpy_from_file_and_string():
    n = 1000
    xs = data("float32", n)
    ys = data("float32", n, seed=2)
    for prog in (patc.compile(ROOT / "examples" / "saxpy.rise"), patc.compile(SAXPY)):
        k = prog.kernel("saxpy")
        assert k.nat_names == ("n",)
        np.testing.assert_allclose(k(2.5, xs, ys, n=n), 2.5 * xs + ys, rtol=1e-6)
        out = np.empty(n, dtype="f4")
        assert k(1.0, xs, ys, n=n, out=out) is out
        np.testing.assert_allclose(out, xs + ys, rtol=1e-6)
    assert prog["saxpy"] is prog.kernel("saxpy")


def test_defines_fix_a_nat():
    k = patc.compile(SAXPY, defines={"n": 7}).kernel("saxpy")
    assert k.nat_names == ()
    x = np.arange(7, dtype="f4")
    np.testing.assert_array_equal(k(3.0, x, x), 4 * x)
    with pytest.raises(patc.SizeError):
        k(3.0, np.arange(8, dtype="f4"), np.arange(8, dtype="f4"))


def test_several_outputs_and_shapes():
    k = patc.compile(MINMAX).kernel("minmax")
    x = np.random.default_rng(0).integers(-100, 100, (33, 4)).astype("i4")
    lo, hi, s = k(x, m=33)
    np.testing.assert_array_equal(lo, x.min(axis=1))
    np.testing.assert_array_equal(hi, x.max(axis=1))
    np.testing.assert_array_equal(s, x.sum(axis=1))
    outs = tuple(np.empty(33, dtype="i4") for _ in range(3))
    assert k(x, m=33, out=outs)[2] is outs[2]
    with pytest.raises(patc.InvalidArgumentError, match="3 outputs"):
        k(x, m=33, out=outs[:2])


def test_kernel_argument_errors():
    k = patc.compile(SAXPY).kernel("saxpy")
    x = np.zeros(10, dtype="f4")
    with pytest.raises(patc.DtypeError, match="float64"):
        k(1.0, x.astype("f8"), x, n=10)
    with pytest.raises(patc.SizeError, match="9 elements"):
        k(1.0, x[:9], x, n=10)
    with pytest.raises(patc.ContiguityError):
        k(1.0, np.zeros(20, dtype="f4")[::2], x, n=10)
    with pytest.raises(patc.InvalidArgumentError, match="n=..."):
        k(1.0, x, x)
    with pytest.raises(patc.InvalidArgumentError, match="m is no nat"):
        k(1.0, x, x, n=10, m=3)
    with pytest.raises(TypeError):
        k(x, x, n=10)
    with pytest.raises(patc.ArrayError, match="not an array"):
        k(1.0, [0.0] * 10, x, n=10)
    with pytest.raises(patc.DtypeError):
        k("a", x, x, n=10)
    with pytest.raises(patc.SizeError):
        k(1.0, x, x, n=0)  # a nat is at least 1
    with pytest.raises(patc.DeviceMismatchError):
        k(1.0, x, x, n=10, device="cuda")


def test_compile_errors_carry_diagnostics(tmp_path):
    with pytest.raises(patc.CompileError) as e:
        patc.compile(BAD, name="mine.rise")
    msg = str(e.value)
    assert "mine.rise:2:" in msg and "undefined_name" in msg and "^" in msg
    assert e.value.diagnostics and e.value.status == "PATC_ERR_COMPILE"
    assert isinstance(e.value, patc.PatcError)
    f = tmp_path / "bad.rise"
    f.write_text(BAD)
    with pytest.raises(patc.CompileError, match=r"bad\.rise:2:\d+"):
        patc.compile(str(f))
    with pytest.raises(patc.FileError):
        patc.compile(str(tmp_path / "missing.rise"))
    with pytest.raises(patc.NotFoundError, match="its kernels: saxpy"):
        patc.compile(SAXPY).kernel("nope")


def test_interpreter_error():
    k = patc.compile("kernel d = nFun(n => fun(n.i32)(xs => xs |> mapGlobal(fun(x => 10 / x))))").kernel("d")
    np.testing.assert_array_equal(k(np.array([1, 2, 5], dtype="i4"), n=3), [10, 5, 2])
    with pytest.raises(patc.InterpreterError, match="interpreter"):
        k(np.array([1, 0, 5], dtype="i4"), n=3)


def test_include_dirs(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "twice.rise").write_text("def twice = fun(x => x * 2.0f)\n")
    src = 'import "twice.rise"\nkernel t = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(twice)))\n'
    with pytest.raises(patc.CompileError):
        patc.compile(src)
    k = patc.compile(src, include=[tmp_path / "lib"]).kernel("t")
    np.testing.assert_array_equal(k(np.arange(4, dtype="f4"), n=4), [0, 2, 4, 6])


def test_emit_cuda():
    cu = patc.emit_cuda(SAXPY)
    assert 'extern "C" __global__ void saxpy(' in cu and "block size" in cu
    assert 'extern "C" __global__ void saxpy(' in patc.emit_cuda(ROOT / "examples" / "saxpy.rise")
    assert "kernel IR" in patc.compile(SAXPY).ir
    cu7 = patc.emit_cuda(SAXPY, defines={"n": 7})
    assert cu7 != cu


def test_host_objects_and_torch_cpu():
    class Host:
        def __init__(self, a):
            self.__array_interface__ = a.__array_interface__
            self._a = a
    x = np.arange(6, dtype="f4")
    np.testing.assert_array_equal(patc.inclusive_scan(Host(x)), np.cumsum(x))
    torch = pytest.importorskip("torch")
    t = torch.arange(6, dtype=torch.float32)
    r = patc.inclusive_scan(t)
    assert isinstance(r, torch.Tensor) and r.tolist() == [0, 1, 3, 6, 10, 15]
    assert float(patc.reduce(t)) == 15.0
    y = patc.compile(SAXPY).kernel("saxpy")(2.0, t, t, n=6)  # its output made by t.new_empty
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float32 and y.tolist() == [0, 3, 6, 9, 12, 15]


def test_version():
    assert patc.library_version
    assert os.path.exists(os.path.join(os.path.dirname(patc.__file__), "libpatrt.so")) or os.environ.get(
        "PATC_LIBRARY")


def test_bench_dry_run(tmp_path):
    """bench/python_bench.py's loops, tables and files, on the CPU interpreter."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "python_bench.py"), "--dry-run", "--max-log", "12",
                        "--dtypes", "f32,i32", "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "python_bench.md").read_text()
    assert "## inclusive_scan f32" in md and "| 2^12 |" in md and "Per-call overhead" in md
    csv = (tmp_path / "python_bench.csv").read_text().splitlines()
    assert csv[0] == "op,dtype,n,impl,median_us,min_us,reps,gbps_in,streamed_us" and len(csv) > 20
    assert "run: python3" in (tmp_path / "command.txt").read_text()


# The ctypes structs of patc._lib against runtime/patc.h: the same fields in the same
# order (a field added to a C struct but not here, or put elsewhere, shifts every field
# after it: patc_compile_options.bins_in_result, stop 51, was first put before
# check_only, where this struct then had check_only)
def _c_fields(header, name):
    import re
    m = re.search(r"typedef struct %s \{(.*?)\} %s;" % (name, name), header, re.S)
    assert m, name
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    fields = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        names = decl.split(",")
        first = re.sub(r"\[.*?\]", "", names[0]).replace("*", " ").split()[-1]
        fields.append(first)
        fields += [re.sub(r"\[.*?\]", "", n).replace("*", " ").strip() for n in names[1:]]
    return fields


@pytest.mark.parametrize("cname, pyname", [("patc_compile_options", "CompileOptions"), ("patc_sort_spec", "SortSpec"),
                                            ("patc_define", "Define"), ("patc_algo_spec", "AlgoSpec")])
def test_ctypes_structs_match_patc_h(cname, pyname):
    from patc import _lib
    header = (ROOT / "runtime" / "patc.h").read_text()
    py = [f[0].rstrip("_") for f in getattr(_lib, pyname)._fields_]
    assert py == _c_fields(header, cname)
