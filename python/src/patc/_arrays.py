"""What patc needs of an array argument, from whichever library made it, and how to make
an output array of the same library.

An array is described as a tuple (ptr, type, numel, contiguous, device, lib, keep):
its address, its patc_type (-1 when patc has no such element type, with the name kept in
`keep` for the message), its element count, whether it is C-contiguous, its CUDA device
(-1 for host memory), the library that made it (TORCH, CUPY, NUMPY, OTHER), and an object
to hold alive until the call returns (a DLPack capsule).

PyTorch and CuPy arrays are read through their own attributes (data_ptr(), dtype,
numel(), ...): they are the same fields the protocols carry, and PyTorch's
__cuda_array_interface__ builds a dict of several entries on every access, a few
microseconds of the call's budget. Any other object goes through the protocols:
__cuda_array_interface__ (v2/v3) first, then __dlpack__/__dlpack_device__, then, for host
memory, NumPy's asarray (the buffer protocol and __array_interface__).
"""
import ctypes

from . import _lib
from ._lib import ArrayError, ContiguityError, DtypeError, SizeError

TORCH, CUPY, NUMPY, OTHER = range(4)
LIB_NAMES = ("torch", "cupy", "numpy", "other")

_handlers = {}  # type(obj) -> function(obj, stream) giving the description tuple
_torch = None
_torch_types = {}
_torch_dtypes = [None] * 7
_torch_devices = {}
_np = None
_np_types = {}
_cupy = None


def _numpy():
    global _np
    if _np is None:
        import numpy
        _np = numpy
        for t, name in enumerate(_lib.TYPE_DTYPE_NAMES):
            _np_types[numpy.dtype(name)] = t
    return _np


def _np_type(dtype):
    return _np_types.get(dtype, -1)


def _init_torch(torch):
    global _torch
    _torch = torch
    for t, name in enumerate(_lib.TYPE_DTYPE_NAMES):
        d = getattr(torch, name, None)  # torch.uint32 and uint64 exist from 2.3 on
        if d is not None:
            _torch_types[d] = t
            _torch_dtypes[t] = d
    if _lib._fast is not None:
        _lib._fast.set_torch(torch.Tensor, _torch_types, getattr(torch._C, "_cuda_getCurrentRawStream", None) or
                             (lambda d: torch.cuda.current_stream(d).cuda_stream))


def _init_cupy(cupy):
    global _cupy
    _cupy = cupy
    _numpy()
    if _lib._fast is not None:
        _lib._fast.set_cupy(cupy.ndarray, _np_types, lambda dev: cupy.cuda.get_current_stream().ptr)


def _describe_torch(t, stream):
    return (t.data_ptr(), _torch_types.get(t.dtype, -1), t.numel(), t.is_contiguous(), t.get_device(), TORCH,
            t.dtype)


def _describe_cupy(a, stream):
    return (a.data.ptr, _np_types.get(a.dtype, -1), a.size, a.flags.c_contiguous, a.device.id, CUPY, a.dtype)


def _describe_numpy(a, stream):
    return (a.ctypes.data, _np_types.get(a.dtype, -1), a.size, a.flags.c_contiguous, -1, NUMPY, a.dtype)


_TYPESTR = {"<f4": _lib.F32, "<f8": _lib.F64, "<i4": _lib.I32, "<u4": _lib.U32, "<i8": _lib.I64, "<u8": _lib.U64,
            "|b1": _lib.BOOL}


def _c_contiguous(shape, strides, itemsize):
    if strides is None:
        return True
    want = itemsize
    for dim, st in zip(reversed(shape), reversed(strides)):
        if dim != 1 and st != want:
            return False
        want *= dim
    return True


def _describe_cai(obj, stream):
    cai = obj.__cuda_array_interface__
    t = _TYPESTR.get(cai["typestr"], -1)
    shape = tuple(cai["shape"])
    numel = 1
    for d in shape:
        numel *= d
    size = _lib.TYPE_SIZES[t] if t >= 0 else 1
    dev = 0
    if hasattr(obj, "__dlpack_device__"):
        dev = obj.__dlpack_device__()[1]
    return (cai["data"][0] or 0, t, numel, _c_contiguous(shape, cai.get("strides"), size), dev, OTHER, cai["typestr"])


# ---------------------------------------------------------------- DLPack


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
# (code, bits) -> patc_type: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBool 6
_DL_TYPES = {(2, 32): _lib.F32, (2, 64): _lib.F64, (0, 32): _lib.I32, (1, 32): _lib.U32, (0, 64): _lib.I64,
             (1, 64): _lib.U64, (6, 8): _lib.BOOL, (1, 8): -1}
_DL_CUDA, _DL_CPU, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 2, 1, 3, 13


def _describe_dlpack(obj, stream):
    dev_type, dev_id = obj.__dlpack_device__()
    if dev_type == _DL_CUDA:
        # DLPack's stream numbers: 1 is the legacy default stream (0 is not allowed)
        cap = obj.__dlpack__(stream=stream if stream else 1)
    else:
        cap = obj.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(cap, b"dltensor"))
    shape = [t.shape[i] for i in range(t.ndim)]
    numel = 1
    for d in shape:
        numel *= d
    strides = None if not t.strides else [t.strides[i] for i in range(t.ndim)]
    # DLPack strides count elements
    contig = _c_contiguous(shape, strides, 1)
    pt = _DL_TYPES.get((t.dtype.code, t.dtype.bits), -1) if t.dtype.lanes == 1 else -1
    dev = dev_id if dev_type in (_DL_CUDA, _DL_CUDA_MANAGED) else -1
    # keep: the capsule (its deleter runs when it is collected, after the call)
    return ((t.data or 0) + t.byte_offset, pt, numel, contig, dev, OTHER, cap)


def _describe_host(obj, stream):
    a = _numpy().asarray(obj)
    d = _describe_numpy(a, stream)
    return d[:6] + (a,)


def _handler_for(obj):
    """The describing function for obj's type, found once per type."""
    mod = type(obj).__module__ or ""
    if mod.startswith("torch"):
        import torch
        if isinstance(obj, torch.Tensor):
            if _torch is None:
                _init_torch(torch)
            return _describe_torch
    if mod.startswith("cupy"):
        import cupy
        if isinstance(obj, cupy.ndarray):
            _init_cupy(cupy)
            return _describe_cupy
    if mod.startswith("numpy"):
        np = _numpy()
        if isinstance(obj, np.ndarray):
            return _describe_numpy
    if hasattr(obj, "__cuda_array_interface__"):
        return _describe_cai
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _describe_dlpack
    if hasattr(obj, "__array_interface__") or hasattr(obj, "__array__"):
        return _describe_host
    return None


def describe(obj, stream=0):
    h = _handlers.get(type(obj))
    if h is None:
        h = _handler_for(obj)
        if h is None:
            return None
        _handlers[type(obj)] = h
    return h(obj, stream)


def is_array(obj):
    h = _handlers.get(type(obj))
    if h is not None:
        return True
    h = _handler_for(obj)
    if h is not None:
        _handlers[type(obj)] = h
        return True
    return False


def type_name(d):
    """The element type of a description, as the user's library names it."""
    if d[1] >= 0:
        return _lib.TYPE_DTYPE_NAMES[d[1]]
    return str(d[6])


def check(d, want_type, want_numel, what, *what_args):
    """Raise the exception for an array described by d that is not `want_numel`
    C-contiguous elements of patc_type want_type (want_type -1: any patc type; want_numel
    -1: any count). The message starts with what % what_args, formatted only then."""
    if d[3] and d[1] >= 0 and (d[1] == want_type or want_type < 0) and (d[2] == want_numel or want_numel < 0):
        return
    what = what % what_args
    if d[1] < 0 or (want_type >= 0 and d[1] != want_type):
        if want_type >= 0:
            raise DtypeError("%s: element type %s, the kernel's parameter is %s (%s)" %
                             (what, type_name(d), _lib.TYPE_DTYPE_NAMES[want_type], _lib.TYPE_NAMES[want_type]))
        raise DtypeError("%s: element type %s is not one patc takes (float32, float64, int32, uint32, int64, uint64, "
                         "bool)" % (what, type_name(d)))
    if want_numel >= 0 and d[2] != want_numel:
        raise SizeError("%s: %d elements, the kernel's parameter has %d for these sizes" % (what, d[2], want_numel))
    if not d[3]:
        raise ContiguityError("%s: not C-contiguous; patc reads packed arrays (make it contiguous first, e.g. "
                              ".contiguous() or numpy.ascontiguousarray)" % what)


def data_ptr(lib, a):
    """The address of an array this module made (empty, count_array)."""
    if lib == TORCH:
        return a.data_ptr()
    if lib == CUPY:
        return a.data.ptr
    if lib == NUMPY:
        return a.ctypes.data
    return describe(a)[0]


# ---------------------------------------------------------------- outputs


def torch_device(dev):
    d = _torch_devices.get(dev)
    if d is None:
        d = _torch_devices[dev] = _torch.device("cuda", dev) if dev >= 0 else _torch.device("cpu")
    return d


def empty(lib, t, count, dev):
    """A new array of `count` elements of patc_type t of library `lib` on device dev
    (-1: host memory: a NumPy array, or a CPU tensor for PyTorch)."""
    if lib == NUMPY or (dev < 0 and lib != TORCH):
        return _numpy().empty(count, dtype=_lib.TYPE_DTYPE_NAMES[t])
    if lib == OTHER:  # a CUDA array of another library: CuPy's, else PyTorch's
        try:
            import cupy
            _init_cupy(cupy)
            lib = CUPY
        except ImportError:
            try:
                import torch
                if _torch is None:
                    _init_torch(torch)
                lib = TORCH
            except ImportError:
                raise ArrayError("patc: an output for an array of this library needs CuPy or PyTorch; give out=")
    if lib == TORCH:
        dt = _torch_dtypes[t]
        if dt is None:
            raise DtypeError("this PyTorch has no %s dtype for the output" % _lib.TYPE_DTYPE_NAMES[t])
        return _torch.empty(count, dtype=dt, device=torch_device(dev))
    # CuPy
    if _cupy.cuda.runtime.getDevice() == dev:
        return _cupy.empty(count, dtype=_lib.TYPE_DTYPE_NAMES[t])
    with _cupy.cuda.Device(dev):
        return _cupy.empty(count, dtype=_lib.TYPE_DTYPE_NAMES[t])


_torch_raw_stream = None
_multi = {}


def multi_gpu(lib):
    """Whether the library sees more than one GPU (asked once). libpatrt makes the
    primary context of the device it launches on current on the calling thread; with
    one GPU that is the context PyTorch and CuPy use already."""
    m = _multi.get(lib)
    if m is None:
        if lib == TORCH:
            m = _torch.cuda.device_count() > 1
        elif lib == CUPY:
            m = _cupy.cuda.runtime.getDeviceCount() > 1
        else:
            m = False
        _multi[lib] = m
    return m


def device_guard(lib, dev):
    """The library's own device guard for dev, which restores its current device (and
    so the current context) on exit."""
    if lib == TORCH:
        return _torch.cuda.device(dev)
    return _cupy.cuda.Device(dev)


def current_stream(lib, dev):
    """The stream the caller's library would run its next operation on, as a CUstream."""
    global _torch_raw_stream
    if lib == TORCH:
        if _torch_raw_stream is None:
            _torch_raw_stream = getattr(_torch._C, "_cuda_getCurrentRawStream", None) or \
                (lambda d: _torch.cuda.current_stream(d).cuda_stream)
        return _torch_raw_stream(dev)
    if lib == CUPY:
        return _cupy.cuda.get_current_stream().ptr
    return 0


def stream_handle(stream):
    """An explicit stream= argument as a CUstream: an int, or an object with .cuda_stream
    (torch.cuda.Stream), .ptr (cupy.cuda.Stream) or __cuda_stream__ (the CUDA stream
    protocol: (version, handle))."""
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr"):
        v = getattr(stream, attr, None)
        if isinstance(v, int):
            return v
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    raise ArrayError("stream=%r: give a CUstream as an int, a torch.cuda.Stream, a cupy.cuda.Stream or an object "
                     "with __cuda_stream__" % (stream,))


def count_value(lib, arr, stream=None):
    """The u32 count a filter or partition wrote into `arr` (one element), as an int:
    for a GPU array this waits for the stream (as torch.masked_select does). `stream`:
    the stream the call was enqueued on when it was given as stream=, which the library's
    read (on its current stream) would not wait for."""
    if lib == TORCH:
        if stream is not None:
            _torch.cuda.ExternalStream(stream).synchronize()
        return int(arr.item()) & 0xFFFFFFFF
    if lib == CUPY:
        if stream is not None:
            _cupy.cuda.ExternalStream(stream).synchronize()
            return int(arr.get(stream=_cupy.cuda.ExternalStream(stream))[0]) & 0xFFFFFFFF
        return int(arr.get()[0]) & 0xFFFFFFFF
    return int(arr[0]) & 0xFFFFFFFF


def count_array(lib, dev):
    """A one-element array of 4 bytes for a count (int32 for PyTorch, whose uint32 is
    missing before 2.3; the u32's bits are the same)."""
    if lib == TORCH:
        return _torch.empty(1, dtype=_torch.int32, device=torch_device(dev))
    return empty(lib, _lib.U32, 1, dev)


def as_host(obj):
    """obj as a NumPy array, without a copy where the memory allows (a CPU tensor)."""
    mod = type(obj).__module__ or ""
    if mod.startswith("torch"):
        return obj.detach().numpy()
    return _numpy().asarray(obj)

