"""Experiment (issue 36): why patc.reduce (f32) is slower than torch.sum "alone" (one call,
CUDA events around it, the GPU idle before) while level or faster streamed
(bench/results/2026-11-26-nvidia-h100-python). Per n: the host time of one call
(perf_counter, after a synchronize), the event time, and the GPU work the call made
(torch.profiler's CUDA activities: kernels and memsets, with their GPU durations).
    PATC_WHEEL=... ; python3 bench/probe/reduce_alone.py   (PYTHONPATH with the wheel's patc)"""
import statistics, time
import torch, patc
from torch.profiler import profile, ProfilerActivity

def alone(fn, reps=200):
    ev, host = [], []
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(reps):
        torch.cuda.synchronize()
        a.record(); t0 = time.perf_counter(); fn(); t1 = time.perf_counter(); b.record()
        b.synchronize()
        ev.append(a.elapsed_time(b) * 1000); host.append((t1 - t0) * 1e6)
    return statistics.median(ev), statistics.median(host)

for n in (1 << 10, 1 << 20, 1 << 24):
    x = torch.rand(n, device="cuda")
    o = torch.empty((), device="cuda")
    fns = {"patc.reduce": lambda: patc.reduce(x), "patc.reduce out=": lambda: patc.reduce(x, out=o),
           "torch.sum": lambda: torch.sum(x), "torch.sum out=": lambda: torch.sum(x, dim=0, out=o)}
    for f in fns.values():
        for _ in range(20): f()
    for name, f in fns.items():
        e, h = alone(f)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as p:
            for _ in range(5): f()
            torch.cuda.synchronize()
        gpu = [(ev.key[:40], round(ev.device_time_total / 5, 2)) for ev in p.key_averages() if ev.device_time_total > 0]
        print(f"n=2^{n.bit_length()-1:<2} {name:18s} event {e:7.2f} us  host {h:6.2f} us  gpu work/call {gpu}")
