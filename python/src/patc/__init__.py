"""patc from Python: compile .rise kernels and call them on PyTorch, CuPy and NumPy arrays,
and the ready-made device algorithms (reduce, scans, filter, partition, sort).

    import patc, torch
    prog = patc.compile("examples/saxpy.rise")
    y = prog.kernel("saxpy")(2.0, xs, ys, n=xs.numel())    # on xs's device and stream
    s = patc.inclusive_scan(torch.rand(1 << 20, device="cuda"))
    sel = patc.filter(x, "fun(x => x > t)", t=0.5)

NumPy arrays run on patc's CPU interpreter, which needs neither a GPU nor NVRTC.
docs/python.md describes the package.
"""
from ._lib import (PatcError, InvalidArgumentError, OutOfMemoryError, FileError, CompileError, NvrtcError,
                   DriverError, NoDriverError, NoDeviceError, NotFoundError, SizeError, LaunchConfigError,
                   InterpreterError, ArrayError, DtypeError, ContiguityError, DeviceMismatchError)
from ._lib import patc_version as _version
from ._core import (Program, Kernel, compile, emit_cuda, reduce, inclusive_scan, exclusive_scan, filter, partition,
                    sort, sort_pairs, describe_algorithm)

__version__ = "0.1.0"
library_version = _version().decode()

__all__ = ["compile", "emit_cuda", "Program", "Kernel", "reduce", "inclusive_scan", "exclusive_scan", "filter",
           "partition", "sort", "sort_pairs", "describe_algorithm", "PatcError", "InvalidArgumentError", "OutOfMemoryError", "FileError",
           "CompileError", "NvrtcError", "DriverError", "NoDriverError", "NoDeviceError", "NotFoundError",
           "SizeError", "LaunchConfigError", "InterpreterError", "ArrayError", "DtypeError", "ContiguityError",
           "DeviceMismatchError"]
