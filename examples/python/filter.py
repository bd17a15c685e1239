"""Stream compaction of PyTorch tensors with patc's ready-made filter (and a
partition), checked against torch.masked_select. The predicate is a .rise lambda; the
scalars it names are given by keyword.

    python3 examples/python/filter.py
"""
import torch

import patc


def main():
    for n in (1, 1000, 1000003, 1 << 24):
        x = torch.rand(n, device="cuda")
        kept = patc.filter(x, "fun(x => x > t)", t=0.9)  # reads the count back, as masked_select does
        assert torch.equal(kept, torch.masked_select(x, x > 0.9))
        band = patc.filter(x, "fun(x => x > lo && x < hi)", lo=0.25, hi=0.5)
        assert torch.equal(band, x[(x > 0.25) & (x < 0.5)])
        out, m = patc.partition(x, "fun(x => x < t)", t=0.5, stable=True)
        assert m == int((x < 0.5).sum()) and torch.equal(out[:m], x[x < 0.5]) and torch.equal(out[m:], x[x >= 0.5])
        print("n = %8d: %d of %d kept, as torch.masked_select" % (n, kept.numel(), n))
    # without reading the count back: the call does not wait
    x = torch.rand(1 << 20, device="cuda")
    out, count = patc.filter(x, "fun(x => x > 0.5f)", sync=False)
    print("unsynced count:", int(count.item()), "==", int((x > 0.5).sum()))
    print("OK filter")


if __name__ == "__main__":
    main()
