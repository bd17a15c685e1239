"""examples_check.py CHECK ARGS... TMPDIR: the reference computations of
tests/examples_test.sh. Reads TMPDIR/out.bin (what patc computed) and the inputs
TMPDIR/NAME.bin, computes the result independently (in double precision for floats)
and exits 1 with a message when they differ: integers exactly, floats within a
relative tolerance. Prints the largest error found."""
import math, struct, sys

args, d = sys.argv[1:-1], sys.argv[-1]


def load(name, kind):
    b = open("%s/%s.bin" % (d, name), "rb").read()
    return list(struct.unpack("<%d%s" % (len(b) // 4, "f" if kind == "f32" else "i"), b))


def compare(got, want, kind, tol=1e-5, floor=1.0):
    if len(got) != len(want):
        sys.exit("length %d, expected %d" % (len(got), len(want)))
    worst = 0.0
    for i, (g, w) in enumerate(zip(got, want)):
        if kind == "i32":
            if g != w:
                sys.exit("element %d: %d, expected %d" % (i, g, w))
            continue
        err = abs(g - w) / max(abs(w), floor)
        if not err <= tol:
            sys.exit("element %d: %.9g, expected %.9g (relative error %.3g)" % (i, g, w, err))
        worst = max(worst, err)
    print("max error %.3g" % worst)


def scan(kind, mode, op, init, name):
    xs, out = load(name, kind), load("out", kind)
    f = (lambda a, b: a + b) if op == "add" else max
    want = []
    for w in range(0, len(xs), 32):
        acc = float(init) if kind == "f32" else int(init)
        for x in xs[w:w + 32]:
            if mode == "excl":
                want.append(acc)
            acc = f(acc, x)
            if mode == "incl":
                want.append(acc)
    compare(out, want, kind)


def dscan(kind, mode, init, name):
    """a device scan (add) of the whole array: floats within 1e-4 of the double sum,
    relative to sqrt(n) (the size of a random walk's partial sums)"""
    xs, out = load(name, kind), load("out", kind)
    want, acc = [], float(init) if kind == "f32" else int(init)
    for x in xs:
        if mode == "excl":
            want.append(acc)
        acc = acc + x
        if kind == "i32":
            acc = (acc + 2**31) % 2**32 - 2**31
        if mode == "incl":
            want.append(acc)
    compare(out, want, kind, tol=1e-4, floor=max(1.0, math.sqrt(len(xs))))


def fill(name):
    """the last non-zero element up to each position, 0 before the first (i32)"""
    xs, out = load(name, "i32"), load("out", "i32")
    want, last = [], 0
    for x in xs:
        if x != 0:
            last = x
        want.append(last)
    if len(xs) >= 31 and len(set(xs) - {0}) < 2:
        sys.exit("the input has fewer than two non-zero values: the test would not test the order")
    compare(out, want, "i32")


def tscan(tile, name):
    """an exclusive sum of each tile of `tile` elements on its own (i32, wrapping)"""
    tile, xs, out = int(tile), load(name, "i32"), load("out", "i32")
    want = []
    for t in range(0, len(xs), tile):
        acc = 0
        for x in xs[t:t + tile]:
            want.append(acc)
            acc = (acc + x + 2**31) % 2**32 - 2**31
    compare(out, want, "i32")


def softmax(m, name):
    m, xs, out = int(m), load(name, "f32"), load("out", "f32")
    want = []
    for r in range(0, len(xs), m):
        row = xs[r:r + m]
        mx = max(row)
        es = [math.exp(x - mx) for x in row]
        s = sum(es)
        want += [e / s for e in es]
    compare(out, want, "f32", tol=1e-4, floor=1e-30)


def uf(uf, name):
    uf, xs, out = int(uf), load(name, "f32"), load("out", "f32")
    n = len(xs)
    t = (n + uf - 1) // uf
    compare(out, [sum(xs[k] for k in range(tid, n, t)) for tid in range(t)], "f32")


def matmul(m, n, k, a, b):
    m, n, k, A, B, out = int(m), int(n), int(k), load(a, "f32"), load(b, "f32"), load("out", "f32")
    want = [sum(A[i * k + p] * B[p * n + j] for p in range(k)) for i in range(m) for j in range(n)]
    compare(out, want, "f32", tol=1e-4)


def compact(kind, mode, t, name):
    """filter (mode filter: the count, then exactly the elements above t in order) or
    partition (mode partition, or partition_lt for x < t: the count, then those in order and the others in reverse
    order, all n; mode partition_stable: the others in order): TMPDIR/cnt.bin holds the count (u32), out.bin the
    elements"""
    xs, out = load(name, kind), load("out", kind)
    t = float(t) if kind == "f32" else int(t)
    cnt = struct.unpack("<I", open("%s/cnt.bin" % d, "rb").read())[0]
    pred = (lambda x: x < t) if mode == "partition_lt" else (lambda x: x > t)
    sel = [x for x in xs if pred(x)]
    if cnt != len(sel):
        sys.exit("count %d, expected %d" % (cnt, len(sel)))
    rest = [x for x in xs if not pred(x)]
    want = sel if mode == "filter" else sel + (rest if mode == "partition_stable" else rest[::-1])
    compare(out, want, kind, tol=0.0)


def i32(v):
    v %= 1 << 32
    return v - (1 << 32) if v >= 1 << 31 else v


def bits(kernel, name):
    """tests/programs/scalar_forms.rise's bitsU32 and bitsI32 (C semantics: 32-bit
    wrap-around, >> of a signed value arithmetic), and shfl_types.rise's ballotRank"""
    xs, out, M = load(name, "i32"), load("out", "i32"), 1 << 32
    if kernel == "bitsU32":
        def f(x):
            u = x % M
            h = u * 2654435761 % M
            return i32(((u & 12) | (u ^ 5)) + (u << (u % 32)) + (h >> (u % 29)) + (~u % M) + bin(h).count("1")
                       + (u | ((3 & 5) ^ 6)))
        want = [f(x) for x in xs]
    elif kernel == "bitsI32":
        def f(x):
            a = x - 50
            # C's % truncates toward zero; the counts must be in range (x >= 0 here)
            return i32((a >> (x % 7)) + i32(a << (x % 31)) + (a & 7) + ~x + (a ^ -3))
        want = [f(x) for x in xs]
    else:  # ballotRank: per warp of 32
        want = []
        for w in range(0, len(xs), 32):
            up = [x > 50 for x in xs[w:w + 32]]
            want += [sum(up[:l]) + 1000 * sum(up) + (100000 if up[l] else 0) for l in range(32)]
    compare(out, want, "i32")


def jacobi(m, n, name):
    """examples/jacobi.rise: a 5-point Jacobi step on an m x n grid, zero outside it"""
    m, n, a, out = int(m), int(n), load(name, "f32"), load("out", "f32")

    def at(i, j):
        return a[i * n + j] if 0 <= i < m and 0 <= j < n else 0.0
    want = [0.2 * (at(i, j) + at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1))
            for i in range(m) for j in range(n)]
    compare(out, want, "f32", tol=1e-5)


def transpose(m, n, name):
    """examples/transpose_tiled.rise: the n x m transpose of an m x n matrix, exactly"""
    m, n, a, out = int(m), int(n), load(name, "f32"), load("out", "f32")
    want = [a[i * n + j] for j in range(n) for i in range(m)]
    if out != want:
        sys.exit("transpose differs at element %d" % next(k for k in range(len(want)) if k >= len(out) or out[k] != want[k]))
    print("exact")


def arg(mode, name, itype="i32"):
    """argmax/argmin (examples/argmax.rise): out.bin the value, idx.bin its index (i32, or
    i64): the first maximum (minimum) among the elements that are numbers; NaN (0) when all
    are NaN"""
    xs, out = load(name, "f32"), load("out", "f32")
    idx = struct.unpack("<q" if itype == "i64" else "<i", open("%s/idx.bin" % d, "rb").read())[0]
    nums = [(x, i) for i, x in enumerate(xs) if not math.isnan(x)]
    if not nums:
        if not math.isnan(out[0]) or idx != 0:
            sys.exit("all NaN: got (%r, %d), expected (nan, 0)" % (out[0], idx))
    else:
        best = max(x for x, _ in nums) if mode == "max" else min(x for x, _ in nums)
        first = next(i for x, i in nums if x == best)
        if out[0] != best or idx != first:
            sys.exit("got (%r, %d), expected (%r, %d)" % (out[0], idx, best, first))
    print("exact")


def rshist(kind, name):
    """examples/radixsort.rise's rsHistU32/I32/F32: out.bin the 4 x 256 counts of the keys'
    8-bit digits of their order bits (the u32 words as given; i32: the sign bit flipped;
    f32 bits: -0.0 as +0.0, a negative key's bits complemented, a positive key's sign bit set)"""
    words = [w & 0xffffffff for w in load(name, "i32")]
    got = [c & 0xffffffff for c in load("out", "i32")]

    def order(y):
        if kind == "i32":
            return y ^ 0x80000000
        if kind == "f32":
            if y == 0x80000000:
                return 0x80000000
            return (~y & 0xffffffff) if y & 0x80000000 else y ^ 0x80000000
        return y
    want = [0] * 1024
    for y in words:
        o = order(y)
        for dg in range(4):
            want[256 * dg + ((o >> (8 * dg)) & 255)] += 1
    if got != want:
        bad = [i for i in range(1024) if got[i] != want[i]]
        sys.exit("%d bins differ, first bin %d: got %d, expected %d" % (len(bad), bad[0], got[bad[0]], want[bad[0]]))
    print("exact")


{"rshist": rshist, "arg": arg, "compact": compact, "bits": bits, "scan": scan, "dscan": dscan, "fill": fill, "tscan": tscan, "softmax": softmax,
 "uf": uf, "matmul": matmul, "jacobi": jacobi, "transpose": transpose}[args[0]](*args[1:])
