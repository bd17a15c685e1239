"""Inclusive and exclusive scans of PyTorch tensors with patc's ready-made scan,
checked against torch.cumsum.

    python3 examples/python/scan.py
"""
import torch

import patc


def main():
    for dtype in (torch.float32, torch.int32, torch.int64):
        for n in (1, 1000, 1000003, 1 << 24):
            x = torch.rand(n, device="cuda") if dtype.is_floating_point else \
                torch.randint(0, 10, (n,), device="cuda", dtype=dtype)
            inc = patc.inclusive_scan(x)  # enqueued on torch's current stream
            exc = patc.exclusive_scan(x)
            ref = torch.cumsum(x.double() if dtype.is_floating_point else x, 0)
            if dtype.is_floating_point:
                err = ((inc.double() - ref).abs() / ref.abs().clamp(min=1)).max().item()
                assert err < 1e-4, err
            else:
                assert torch.equal(inc, ref.to(dtype)) and torch.equal(exc[1:], ref[:-1].to(dtype))
            assert exc[0].item() == 0
            print("%-14s n = %8d: matches torch.cumsum" % (dtype, n))
    x = torch.rand(1 << 20, device="cuda")
    print("running max:", torch.equal(patc.inclusive_scan(x, "max"), torch.cummax(x, 0).values))
    print("OK scan")


if __name__ == "__main__":
    main()
