# host us per call: torch allocation variants, and patc calls (this tree's python/src or PYTHONPATH's)
import time, sys, torch, patc
from pathlib import Path
def host(f, N=4000):
    for _ in range(300): f()
    torch.cuda.synchronize()
    best = 1e9
    for rep in range(7):
        t0 = time.perf_counter()
        for _ in range(N): f()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        best = min(best, (t1 - t0) / N * 1e6)
    return best
n = 1024
x = torch.rand(n, device="cuda"); y = torch.rand(n, device="cuda"); out = torch.empty(n, device="cuda")
o0 = torch.empty((), device="cuda"); d = torch.device("cuda", 0); f32 = torch.float32
k = patc.compile(str(Path("examples/saxpy.rise").resolve())).kernel("saxpy")
rows = [("torch.empty(n, dtype, device)", lambda: torch.empty(n, dtype=f32, device=d)),
        ("torch.empty((), dtype, device)", lambda: torch.empty((), dtype=f32, device=d)),
        ("x.new_empty(n)", lambda: x.new_empty(n)), ("x.new_empty(())", lambda: x.new_empty(())),
        ("x.new_empty((n,), dtype=)", lambda: x.new_empty((n,), dtype=f32)),
        ("torch.empty_like(x)", lambda: torch.empty_like(x)),
        ("torch.add(out=)", lambda: torch.add(y, x, alpha=2.0, out=out)), ("torch.add", lambda: torch.add(y, x, alpha=2.0)),
        ("torch.sum", lambda: torch.sum(x)), ("torch.cumsum", lambda: torch.cumsum(x, 0)),
        ("patc saxpy out=", lambda: k(2.0, x, y, n=n, out=out)), ("patc saxpy", lambda: k(2.0, x, y, n=n)),
        ("patc.reduce", lambda: patc.reduce(x)), ("patc.reduce(out=)", lambda: patc.reduce(x, out=o0)),
        ("patc.inclusive_scan", lambda: patc.inclusive_scan(x)), ("patc.inclusive_scan(out=)", lambda: patc.inclusive_scan(x, out=out))]
print(sys.argv[1] if len(sys.argv) > 1 else "", patc.__file__)
for name, f in rows: print("%-34s %7.2f" % (name, host(f)))
