# host cost breakdown of small calls from Python, and batched GPU throughput
import cProfile, pstats, time, sys, torch, patc
from pathlib import Path
from patc import _lib as L, _arrays as A
dev = 0
def host(f, N=4000):
    for _ in range(300): f()
    torch.cuda.synchronize()
    best = 1e9
    for rep in range(5):
        t0 = time.perf_counter()
        for _ in range(N): f()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        best = min(best, (t1 - t0) / N * 1e6)
    return best
k = patc.compile(str(Path("examples/saxpy.rise").resolve())).kernel("saxpy")
n = 1024
x = torch.rand(n, device="cuda"); y = torch.rand(n, device="cuda"); out = torch.empty(n, device="cuda")
o0 = torch.empty((), device="cuda")
xi = torch.randint(0, 100, (n,), device="cuda", dtype=torch.int32)
rows = [
 ("ctypes patc_version()", lambda: L.patc_version()),
 ("_cuda_getCurrentRawStream", lambda: torch._C._cuda_getCurrentRawStream(0)),
 ("torch.cuda.current_stream()", lambda: torch.cuda.current_stream()),
 ("x.data_ptr()", lambda: x.data_ptr()),
 ("describe(x)", lambda: A.describe(x)),
 ("torch.empty(1024)", lambda: torch.empty(1024, device="cuda")),
 ("torch.empty(())", lambda: torch.empty((), device="cuda")),
 ("torch.add(out=)", lambda: torch.add(y, x, alpha=2.0, out=out)),
 ("torch.add", lambda: torch.add(y, x, alpha=2.0)),
 ("torch.sum f32", lambda: torch.sum(x)),
 ("torch.sum(out=) f32", lambda: torch.sum(x, 0, out=o0)),
 ("torch.cumsum f32", lambda: torch.cumsum(x, 0)),
 ("torch.cumsum(out=) f32", lambda: torch.cumsum(x, 0, out=out)),
 ("patc saxpy out=", lambda: k(2.0, x, y, n=n, out=out)),
 ("patc saxpy", lambda: k(2.0, x, y, n=n)),
 ("patc.reduce f32", lambda: patc.reduce(x)),
 ("patc.reduce(out=) f32", lambda: patc.reduce(x, out=o0)),
 ("patc.reduce i32", lambda: patc.reduce(xi)),
 ("patc.inclusive_scan f32", lambda: patc.inclusive_scan(x)),
 ("patc.inclusive_scan(out=) f32", lambda: patc.inclusive_scan(x, out=out)),
]
print("host us per call, back to back, best of 5 x 4000 (n=1024)")
for name, f in rows:
    print("%-34s %7.2f" % (name, host(f)))
# the C call alone: the kernel's prepared ctypes arrays
g = k._gk[0]; ctx, kh = g
sh = k._shapes[(n,)]
def raw():
    L.patc_launch_args_enqueue(kh, sh[0], k._argv, k._outv, None)
print("%-34s %7.2f" % ("patc_launch_args_enqueue alone", host(raw)))
# algo call alone
from patc import _core as C
a = list(C._algos.values())[0]
s = torch._C._cuda_getCurrentRawStream(0)
def raw2():
    L.patc_algo_enqueue_ptr(a, x.data_ptr(), o0.data_ptr(), 0, n, None, s)
print("%-34s %7.2f" % ("patc_algo_enqueue_ptr alone (reduce)", host(raw2)))
def prof(f, N=3000):
    pr = cProfile.Profile(); pr.enable()
    for _ in range(N): f()
    pr.disable(); torch.cuda.synchronize()
    pstats.Stats(pr).sort_stats("tottime").print_stats(14)
prof(lambda: patc.reduce(x))
prof(lambda: k(2.0, x, y, n=n))
# batched GPU throughput: events around 200 back-to-back calls
def batch(f, K=200):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(20): f()
    ts = []
    for rep in range(7):
        torch.cuda.synchronize(); a.record()
        for _ in range(K): f()
        b.record(); b.synchronize(); ts.append(a.elapsed_time(b) * 1000 / K)
    ts.sort(); return ts[3]
print("batched us per call (200 back to back, median of 7)")
for lg in (10, 14, 18, 20, 22, 24):
    m = 1 << lg
    xx = torch.rand(m, device="cuda"); ii = torch.randint(0, 100, (m,), device="cuda", dtype=torch.int32)
    oo = torch.empty_like(xx); cp = torch.empty_like(xx)
    print("2^%d sum f32 patc %.2f torch %.2f | cumsum f32 patc %.2f torch %.2f | sum i32 patc %.2f torch %.2f | copy %.2f" % (
        lg, batch(lambda: patc.reduce(xx)), batch(lambda: torch.sum(xx)), batch(lambda: patc.inclusive_scan(xx)),
        batch(lambda: torch.cumsum(xx, 0)), batch(lambda: patc.reduce(ii)), batch(lambda: torch.sum(ii)), batch(lambda: cp.copy_(xx))))
    for name in ("reduce", "inclusive_scan"):
        print("   ", name, patc.describe_algorithm(name, "float32", m, device=0))
