"""Row softmax of a PyTorch matrix with patc's examples/softmax_rows.rise (one warp per
row), checked against torch.softmax and timed beside it.

    python3 examples/python/softmax.py          (a CUDA GPU, PyTorch and patc installed)
"""
import pathlib

import torch

import patc

ROOT = pathlib.Path(__file__).resolve().parents[2]


def time_ms(fn, reps=50):
    for _ in range(5):
        fn()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return sorted(ts)[len(ts) // 2]


def main():
    m = 1024  # the row length is fixed at compile time (a multiple of 32)
    softmax = patc.compile(ROOT / "examples" / "softmax_rows.rise", defines={"m": m}).kernel("softmaxRows")
    for r in (1, 33, 4097):
        x = torch.randn(r, m, device="cuda")
        y = softmax(x, r=r).view(r, m)  # the output is the r*m packed elements
        err = (y - torch.softmax(x, dim=1)).abs().max().item()
        print("r = %5d, m = %d: max |patc - torch.softmax| = %.3g" % (r, m, err))
        assert err < 1e-5, err
    x = torch.randn(16384, m, device="cuda")
    out = torch.empty_like(x)
    tp = time_ms(lambda: softmax(x, r=16384, out=out.view(-1)))
    tt = time_ms(lambda: torch.softmax(x, dim=1))
    print("16384 x %d: patc %.3f ms, torch.softmax %.3f ms" % (m, tp, tt))
    print("OK softmax")


if __name__ == "__main__":
    main()
