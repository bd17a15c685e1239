"""ctypes declarations of runtime/patc.h: the library, its structs and enums, and the
error hierarchy that turns a patc_status and patc_last_error into an exception.

The declarations follow patc.h field by field; a call's argtypes are set once here, so
that a call from the hot path converts its arguments without looking anything up.
"""
import ctypes
import os
from ctypes import (POINTER, Structure, c_char_p, c_double, c_float, c_int, c_int32, c_int64,
                    c_longlong, c_size_t, c_uint, c_uint32, c_uint64, c_ulonglong, c_void_p, c_bool)

# ---------------------------------------------------------------- enums (patc.h)

OK, ERR_INVALID, ERR_NO_MEMORY, ERR_IO, ERR_COMPILE, ERR_NVRTC, ERR_NO_DRIVER, ERR_NO_DEVICE, \
    ERR_DRIVER, ERR_NOT_FOUND, ERR_SIZE, ERR_LAUNCH_CONFIG, ERR_INTERP = range(13)

NO_CACHE, COMPILE_ONLY, INDEX64 = 0x1, 0x2, 0x4

F32, F64, I32, U32, I64, U64, BOOL = range(7)
TYPE_NAMES = ("f32", "f64", "i32", "u32", "i64", "u64", "bool")
TYPE_SIZES = (4, 8, 4, 4, 8, 8, 1)
# the host type of a scalar passed by value, per patc_type
TYPE_CTYPES = (c_float, c_double, c_int32, c_uint32, c_int64, c_uint64, c_bool)
# the NumPy-style dtype names (numpy, cupy and torch spell them alike after "torch.")
TYPE_DTYPE_NAMES = ("float32", "float64", "int32", "uint32", "int64", "uint64", "bool")

ALGO_REDUCE, ALGO_INCLUSIVE_SCAN, ALGO_EXCLUSIVE_SCAN, ALGO_FILTER, ALGO_PARTITION, \
    ALGO_PARTITION_STABLE = range(6)
OP_SUM, OP_MIN, OP_MAX, OP_LAMBDA = range(4)
ALGO_MAX_SCALARS = 4

# ---------------------------------------------------------------- errors


class PatcError(Exception):
    """An error of patc. `status` is the patc_status name (e.g. "PATC_ERR_COMPILE", or
    None for a check made in Python) and `diagnostics` patc's own message (for a program
    rejected by the compiler: file:line:col, the line and a caret, as the patc command
    prints them)."""

    def __init__(self, message, status=None, diagnostics=""):
        super().__init__(message)
        self.status = status
        self.diagnostics = diagnostics


class InvalidArgumentError(PatcError, ValueError):
    """PATC_ERR_INVALID: a bad argument."""


class OutOfMemoryError(PatcError, MemoryError):
    """PATC_ERR_NO_MEMORY: host memory ran out."""


class FileError(PatcError, OSError):
    """PATC_ERR_IO: a file could not be read."""


class CompileError(PatcError):
    """PATC_ERR_COMPILE: the program was rejected; the message holds patc's diagnostics."""


class NvrtcError(PatcError):
    """PATC_ERR_NVRTC: NVRTC rejected the CUDA C or could not be loaded."""


class DriverError(PatcError):
    """PATC_ERR_DRIVER: a CUDA driver call failed."""


class NoDriverError(DriverError):
    """PATC_ERR_NO_DRIVER: libcuda.so.1 could not be loaded."""


class NoDeviceError(DriverError):
    """PATC_ERR_NO_DEVICE: the driver loaded but the device does not exist."""


class NotFoundError(PatcError, LookupError):
    """PATC_ERR_NOT_FOUND: no kernel of that name."""


class SizeError(PatcError, ValueError):
    """PATC_ERR_SIZE, or an array whose element count is not what the kernel needs."""


class LaunchConfigError(PatcError):
    """PATC_ERR_LAUNCH_CONFIG: a launch the kernel cannot run with."""


class InterpreterError(PatcError):
    """PATC_ERR_INTERP: the CPU interpreter stopped at a run-time error of the program."""


class ArrayError(PatcError, ValueError):
    """An array argument patc cannot take as it is (checked in Python, before any call)."""


class DtypeError(ArrayError, TypeError):
    """An array or scalar of another element type than the parameter's."""


class ContiguityError(ArrayError):
    """An array that is not C-contiguous (patc reads packed arrays)."""


class DeviceMismatchError(ArrayError):
    """Arrays on different devices, or of different libraries, in one call."""


_STATUS = {
    ERR_INVALID: ("PATC_ERR_INVALID", InvalidArgumentError),
    ERR_NO_MEMORY: ("PATC_ERR_NO_MEMORY", OutOfMemoryError),
    ERR_IO: ("PATC_ERR_IO", FileError),
    ERR_COMPILE: ("PATC_ERR_COMPILE", CompileError),
    ERR_NVRTC: ("PATC_ERR_NVRTC", NvrtcError),
    ERR_NO_DRIVER: ("PATC_ERR_NO_DRIVER", NoDriverError),
    ERR_NO_DEVICE: ("PATC_ERR_NO_DEVICE", NoDeviceError),
    ERR_DRIVER: ("PATC_ERR_DRIVER", DriverError),
    ERR_NOT_FOUND: ("PATC_ERR_NOT_FOUND", NotFoundError),
    ERR_SIZE: ("PATC_ERR_SIZE", SizeError),
    ERR_LAUNCH_CONFIG: ("PATC_ERR_LAUNCH_CONFIG", LaunchConfigError),
    ERR_INTERP: ("PATC_ERR_INTERP", InterpreterError),
}

# ---------------------------------------------------------------- structs


class CompileOptions(Structure):
    _fields_ = [("kernel", c_char_p), ("dump", c_char_p), ("dump_out", c_void_p), ("cuda", c_char_p),
                ("no_cubin", c_int), ("min_blocks", c_int), ("evict_first", c_int), ("cuda_file", c_char_p),
                ("check_only", c_int), ("bins_in_result", c_int)]


class SortSpec(Structure):
    _fields_ = [("key_type", c_int), ("values", c_int), ("value_type", c_int), ("descending", c_int),
                ("begin_bit", c_int), ("end_bit", c_int), ("digit_bits", c_int), ("portion", c_longlong)]


class Define(Structure):
    _fields_ = [("name", c_char_p), ("value", c_longlong)]


class AlgoSpec(Structure):
    _fields_ = [("algorithm", c_int), ("type", c_int), ("op", c_int), ("lambda_", c_char_p), ("init", c_char_p),
                ("nscalars", c_int), ("scalar_names", c_char_p * ALGO_MAX_SCALARS),
                ("scalar_types", c_int * ALGO_MAX_SCALARS), ("tuning_file", c_char_p)]


# ---------------------------------------------------------------- the library


def _find_library():
    env = os.environ.get("PATC_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "libpatrt.so")


_path = _find_library()
try:
    lib = ctypes.CDLL(_path)
except OSError as e:  # an install without its library: say where it was looked for
    raise ImportError("patc: cannot load libpatrt (%s): %s; reinstall the package or set PATC_LIBRARY" % (_path, e))

P = c_void_p  # every handle is opaque


def _decl(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


patc_status_string = _decl("patc_status_string", c_char_p, c_int)
patc_version = _decl("patc_version", c_char_p)
patc_create = _decl("patc_create", c_int, POINTER(P), c_int, c_uint)
patc_destroy = _decl("patc_destroy", None, P)
patc_last_error = _decl("patc_last_error", c_char_p, P)
patc_device_status = _decl("patc_device_status", c_int, P)
patc_get_arch = _decl("patc_get_arch", c_int, P)
patc_set_arch = _decl("patc_set_arch", c_int, P, c_int)
patc_add_include_dir = _decl("patc_add_include_dir", c_int, P, c_char_p)
patc_program_compile = _decl("patc_program_compile", c_int, P, c_char_p, P, c_int, P, POINTER(P))
patc_program_compile_string = _decl("patc_program_compile_string", c_int, P, c_char_p, c_char_p, P, c_int, P,
                                    POINTER(P))
patc_program_free = _decl("patc_program_free", None, P)
patc_program_cuda = _decl("patc_program_cuda", c_char_p, P)
patc_program_ir = _decl("patc_program_ir", c_char_p, P)
patc_program_num_kernels = _decl("patc_program_num_kernels", c_int, P)
patc_program_kernel_name = _decl("patc_program_kernel_name", c_char_p, P, c_int)
patc_get_kernel = _decl("patc_get_kernel", c_int, P, c_char_p, POINTER(P))
patc_kernel_num_inputs = _decl("patc_kernel_num_inputs", c_int, P)
patc_kernel_num_nats = _decl("patc_kernel_num_nats", c_int, P)
patc_kernel_nat_name = _decl("patc_kernel_nat_name", c_char_p, P, c_int)
patc_kernel_input_info = _decl("patc_kernel_input_info", c_int, P, c_int, P, POINTER(c_int), POINTER(c_longlong),
                               POINTER(c_size_t))
patc_kernel_input_by_value = _decl("patc_kernel_input_by_value", c_int, P, c_int)
patc_kernel_num_outputs = _decl("patc_kernel_num_outputs", c_int, P)
patc_kernel_output_info_at = _decl("patc_kernel_output_info_at", c_int, P, c_int, P, POINTER(c_int),
                                   POINTER(c_longlong), POINTER(c_size_t))
patc_kernel_output_count_of = _decl("patc_kernel_output_count_of", c_int, P, c_int)
patc_buffer_alloc = _decl("patc_buffer_alloc", c_int, P, c_size_t, POINTER(P))
patc_buffer_wrap = _decl("patc_buffer_wrap", c_int, P, c_ulonglong, c_size_t, POINTER(P))
patc_buffer_free = _decl("patc_buffer_free", None, P)
patc_buffer_device_ptr = _decl("patc_buffer_device_ptr", c_ulonglong, P)
patc_buffer_download = _decl("patc_buffer_download", c_int, P, c_void_p, c_size_t)
patc_set_stream = _decl("patc_set_stream", None, P, c_void_p)
# the arrays of patc_arg / patc_buffer* are passed as ctypes arrays of c_void_p
patc_launch_args_enqueue = _decl("patc_launch_args_enqueue", c_int, P, c_void_p, c_void_p, c_void_p, c_void_p)


def _raw(name):
    """The function without argtypes, for the calls of the hot path: handed ctypes objects
    (a c_void_p, a ctypes array for a pointer; None for NULL) it only checks their types,
    where argtypes' conversions cost as much again (0.25 us a call on this project's
    CPU machine). Never handed a Python int: without argtypes that is a C int."""
    f = lib[name]  # a new function object, not the one _decl set argtypes on
    f.restype = c_int
    return f


patc_launch_args_enqueue_raw = _raw("patc_launch_args_enqueue")
patc_interp_run_outputs = _decl("patc_interp_run_outputs", c_int, P, c_void_p, c_void_p, c_void_p)
patc_algo_create = _decl("patc_algo_create", c_int, P, POINTER(AlgoSpec), POINTER(P))
patc_algo_free = _decl("patc_algo_free", None, P)
patc_algo_enqueue_ptr = _decl("patc_algo_enqueue_ptr", c_int, P, c_ulonglong, c_ulonglong, c_ulonglong, c_longlong,
                              c_void_p, c_void_p)
patc_algo_run_cpu = _decl("patc_algo_run_cpu", c_int, P, c_void_p, c_void_p, c_void_p, c_longlong, c_void_p)
patc_algo_describe = _decl("patc_algo_describe", c_int, P, c_longlong, c_char_p, c_size_t)
patc_algo_source = _decl("patc_algo_source", c_char_p, P)
patc_sorter_free = _decl("patc_sorter_free", None, P)
patc_sorter_temp_bytes = _decl("patc_sorter_temp_bytes", c_int, P, c_longlong, POINTER(c_size_t))
patc_sort_keys_ptr = _decl("patc_sort_keys_ptr", c_int, P, c_ulonglong, c_ulonglong, c_longlong, c_void_p)
patc_sort_keys_cpu = _decl("patc_sort_keys_cpu", c_int, P, c_void_p, c_void_p, c_longlong)
patc_sorter_create_spec = _decl("patc_sorter_create_spec", c_int, P, POINTER(SortSpec), POINTER(P))
patc_sort_pairs_ptr = _decl("patc_sort_pairs_ptr", c_int, P, c_ulonglong, c_ulonglong, c_ulonglong, c_ulonglong,
                            c_longlong, c_void_p)
patc_sort_pairs_cpu = _decl("patc_sort_pairs_cpu", c_int, P, c_void_p, c_void_p, c_void_p, c_void_p, c_longlong)


def address_of(f):
    """A ctypes function's address, for patc._fast, which calls the library loaded here."""
    return ctypes.cast(f, c_void_p).value


# patc._fast: the checked path of a small GPU call in C (python/_fast.c), where the
# package was built with it; the Python path does everything without it. PATC_PURE_PYTHON=1
# in the environment leaves it out (the tests run both).
_fast = None
if not os.environ.get("PATC_PURE_PYTHON"):
    try:
        from . import _fast
    except ImportError:
        _fast = None


def raise_status(status, ctx, what=None):
    """Raise the exception of a failed call, with patc_last_error(ctx) as its diagnostics."""
    name, cls = _STATUS.get(status, ("PATC_STATUS_%d" % status, PatcError))
    diag = patc_last_error(ctx).decode("utf-8", "replace") if ctx else ""
    head = patc_status_string(status).decode()
    msg = diag.rstrip("\n") if diag else head
    if what:
        msg = "%s: %s" % (what, msg)
    raise cls(msg, name, diag)

