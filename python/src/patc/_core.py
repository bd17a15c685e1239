"""Programs, kernels and the ready-made algorithms over libpatrt (runtime/patc.h).

A Program is compiled once without a cubin (front end and CUDA C, no NVRTC) in a
compile-only context: that gives its diagnostics at once, the kernels' parameters, the
CPU interpreter's program and the CUDA C. Its GPU build is made on the first call on a
device, in a context of that device's primary context, the one PyTorch and CuPy use, so
their pointers are valid for patc as they are (patc_buffer_wrap).

Per call, the work in Python is kept to a few lookups: the sizes of the parameters for
a set of nat values are asked of the library once and kept, the wrapped buffers are
kept by (address, bytes) (a wrap owns nothing, so one kept past its array's life is
harmless), the argument arrays are ctypes arrays made once per kernel, and the library
keeps the last launch of a kernel prepared (patc_launch_args_enqueue).
"""
import operator
import os
import sys
import threading
from ctypes import byref, c_int, c_longlong, c_size_t, c_void_p, addressof, create_string_buffer

from . import _arrays as A
from . import _lib as L
from ._lib import ArrayError, DeviceMismatchError, DtypeError, InvalidArgumentError, SizeError


_MAX_WRAPS = 1024  # kept wraps per context


class _Ctx:
    """A patc_ctx with the lock that keeps it to one thread at a time (patc.h's rule) and
    its kept buffer wraps."""

    __slots__ = ("h", "lock", "wraps", "dev", "stream", "__weakref__")

    def __init__(self, dev):
        h = c_void_p()
        flags = (L.COMPILE_ONLY | L.NO_CACHE) if dev < 0 else 0
        rc = L.patc_create(byref(h), max(dev, 0), flags)
        if rc:
            L.raise_status(rc, None, "patc_create")
        self.h = h.value
        self.dev = dev
        self.lock = threading.Lock()
        self.wraps = {}
        self.stream = 0  # the stream last given to patc_set_stream (a context starts on 0)
        if dev >= 0:
            rc = L.patc_device_status(self.h)
            if rc:
                try:
                    L.raise_status(rc, self.h, "CUDA device %d" % dev)
                finally:
                    L.patc_destroy(self.h)
                    self.h = None

    def check(self, rc, what=None):
        if rc:
            L.raise_status(rc, self.h, what)

    def room(self, n):
        """Free the kept wraps when n more could take them past _MAX_WRAPS: called before a
        launch's first wrap (the lock held), so that no wrap of the launch is freed before
        it is enqueued (an enqueued launch holds the addresses, not the wraps)."""
        if len(self.wraps) + n > _MAX_WRAPS:
            for old in self.wraps.values():
                L.patc_buffer_free(old)
            self.wraps.clear()

    def wrap(self, ptr, nbytes):
        """A patc_buffer over device memory [ptr, ptr + nbytes); the caller holds the lock
        and has made room()."""
        key = (ptr, nbytes)
        b = self.wraps.get(key)
        if b is None:
            hb = c_void_p()
            self.check(L.patc_buffer_wrap(self.h, ptr, nbytes, byref(hb)), "patc_buffer_wrap")
            b = self.wraps[key] = hb.value
        return b

    def __del__(self):
        # at interpreter exit the process's end frees everything; the library may be gone
        if self.h and not sys.is_finalizing():
            L.patc_destroy(self.h)
            self.h = None


def _as_device(device):
    """device= as an index: -1 for "cpu", N for "cuda:N" / N / torch.device; None: from
    the arrays."""
    if device is None:
        return None
    if isinstance(device, int):
        return device
    idx = getattr(device, "index", None)
    typ = getattr(device, "type", None)
    if typ is not None:  # torch.device
        return -1 if typ == "cpu" else (idx or 0)
    if hasattr(device, "id"):  # cupy.cuda.Device
        return device.id
    s = str(device)
    if s == "cpu":
        return -1
    if s == "cuda" or s == "gpu":
        return 0
    if s.startswith("cuda:"):
        return int(s[5:])
    raise InvalidArgumentError("device=%r: give \"cpu\", \"cuda\", \"cuda:N\", an index or a torch.device" % (device,))


def _defines(defines):
    defines = defines or {}
    arr = (L.Define * max(len(defines), 1))()
    keep = []
    for i, (k, v) in enumerate(defines.items()):
        b = str(k).encode()
        keep.append(b)
        arr[i].name = b
        try:
            arr[i].value = operator.index(v)
        except TypeError:
            raise InvalidArgumentError("defines[%r] = %r: a nat's value is an integer" % (k, v))
    return arr, len(defines), keep


def _looks_like_source(s):
    return "\n" in s or "=>" in s or "kernel " in s


class Program:
    """A compiled .rise program: patc.compile(path_or_source, defines={...}, include=[...])."""

    def __init__(self, path_or_source, defines=None, include=None, name=None):
        self._path = None
        self._text = None
        if isinstance(path_or_source, os.PathLike) or (isinstance(path_or_source, str) and
                                                       not _looks_like_source(path_or_source)):
            self._path = os.fspath(path_or_source)
            self.name = self._path
            # the GPU build comes later, maybe after a chdir: it reads the same file
            self._abspath = os.path.abspath(self._path)
            if not os.path.exists(self._path):
                raise L.FileError("patc.compile: no file %s (a program's text is recognised by a newline, '=>' or "
                                  "'kernel ')" % self._path, "PATC_ERR_IO")
        elif isinstance(path_or_source, (str, bytes)):
            self._text = path_or_source.encode() if isinstance(path_or_source, str) else path_or_source
            self.name = name or "<string>"
        else:
            raise InvalidArgumentError("patc.compile: give a path or the program's text, not %r" % (path_or_source,))
        self._defs, self._ndefs, self._keep = _defines(defines)
        self._include = [os.fspath(d) for d in (include or [])]
        self._lock = threading.Lock()
        self._cpu_ctx = self._ctx(-1)
        self._cpu = self._build(self._cpu_ctx, no_cubin=True)
        n = L.patc_program_num_kernels(self._cpu)
        self.kernels = tuple(L.patc_program_kernel_name(self._cpu, i).decode() for i in range(n))
        self._gpu = {}
        self._kernels = {}

    def _ctx(self, dev):
        c = _Ctx(dev)
        for d in self._include:
            c.check(L.patc_add_include_dir(c.h, d.encode()), "patc_add_include_dir")
        return c

    def _build(self, ctx, no_cubin):
        out = c_void_p()
        opts = L.CompileOptions(no_cubin=1) if no_cubin else None
        optp = byref(opts) if opts is not None else None
        with ctx.lock:
            if self._path is not None:
                path = self._path if no_cubin else self._abspath
                rc = L.patc_program_compile(ctx.h, path.encode(), self._defs, self._ndefs, optp, byref(out))
            else:
                rc = L.patc_program_compile_string(ctx.h, self.name.encode(), self._text, self._defs, self._ndefs,
                                                   optp, byref(out))
            ctx.check(rc)
        return out.value

    def _gpu_program(self, dev):
        """(context, program) of device dev, built on first use."""
        with self._lock:
            g = self._gpu.get(dev)
            if g is None:
                ctx = self._ctx(dev)
                g = self._gpu[dev] = (ctx, self._build(ctx, no_cubin=False))
        return g

    def kernel(self, name):
        """The kernel `name` as a callable (see Kernel)."""
        k = self._kernels.get(name)
        if k is None:
            k = self._kernels[name] = Kernel(self, name)
        return k

    def __getitem__(self, name):
        return self.kernel(name)

    @property
    def cuda(self):
        """The CUDA C patc generates for the program."""
        return L.patc_program_cuda(self._cpu).decode()

    @property
    def ir(self):
        """The typed functional IR and kernel IR, as patc --emit-ir prints them."""
        return L.patc_program_ir(self._cpu).decode()

    def __repr__(self):
        return "<patc.Program %s: %s>" % (self.name, ", ".join(self.kernels))


def compile(path_or_source, defines=None, include=None, name=None):
    """Compile a .rise program (a path, or the program's text) and return a Program.

    defines: {nat: value}, as patc -D (a nat fixed at compile time); include: directories
    searched for `import`s; name: the name a text's diagnostics and relative imports use.
    A program patc rejects raises CompileError with patc's diagnostics."""
    return Program(path_or_source, defines, include, name)


def emit_cuda(path_or_source, defines=None, include=None, name=None):
    """The CUDA C patc generates for a .rise program, as patc --emit-cuda prints it."""
    return Program(path_or_source, defines, include, name).cuda


_F64 = L.F64
_launch_enqueue = L.patc_launch_args_enqueue_raw

_INT_RANGE = {L.I32: (-2**31, 2**31 - 1), L.U32: (0, 2**32 - 1), L.I64: (-2**63, 2**63 - 1), L.U64: (0, 2**64 - 1)}


def _what(kernel, i):
    return "kernel %s: input %d" % (kernel, i) if kernel is not None else "scalar %s" % i


def _scalar(t, v, kernel, i):
    """A Python value as patc_type t's host value (for input i of kernel, or the scalar
    named i of an algorithm when kernel is None)."""
    if t == L.F32 or t == L.F64:
        if type(v) is float:
            return v
        try:
            return float(v)
        except (TypeError, ValueError):
            raise DtypeError("%s: %r is not a number for a %s" % (_what(kernel, i), v, L.TYPE_NAMES[t]))
    if t == L.BOOL:
        if isinstance(v, float):
            raise DtypeError("%s: %r for a bool" % (_what(kernel, i), v))
        return bool(v)
    try:
        iv = operator.index(v)
    except TypeError:
        raise DtypeError("%s: %r is not an integer for a %s" % (_what(kernel, i), v, L.TYPE_NAMES[t]))
    lo, hi = _INT_RANGE[t]
    if iv < lo or iv > hi:
        raise SizeError("%s: %d is outside %s's range" % (_what(kernel, i), iv, L.TYPE_NAMES[t]))
    return iv


class Kernel:
    """A kernel of a Program, called as kernel(*data_params, n=..., out=None, stream=None,
    device=None): arrays and scalars in the kernel's parameter order, its nat parameters
    (those not fixed by defines) by keyword. Returns its output, or a tuple of its outputs.

    Arrays: PyTorch and CuPy arrays, any object with __cuda_array_interface__ or
    __dlpack__, and NumPy arrays (host memory: run on the CPU interpreter). Each must be
    C-contiguous and hold exactly the parameter's element count (an array of any shape
    is read as its packed elements), of its element type. Outputs are new 1-D arrays of
    the inputs' library on their device, or written into out= (an array, or a tuple of
    one per output). A GPU call is enqueued on the current stream of the arrays' library
    (or stream=) and returns without waiting."""

    def __init__(self, program, name):
        self.program = program
        self.name = name
        h = c_void_p()
        ctx = program._cpu_ctx
        rc = L.patc_get_kernel(program._cpu, name.encode(), byref(h))
        if rc:
            raise L.NotFoundError("program %s has no kernel %s (its kernels: %s)" %
                                  (program.name, name, ", ".join(program.kernels)), "PATC_ERR_NOT_FOUND")
        self._cpu = h.value
        self._nin = L.patc_kernel_num_inputs(self._cpu)
        self._byval = tuple(L.patc_kernel_input_by_value(self._cpu, i) == 1 for i in range(self._nin))
        self._arrays = tuple(i for i in range(self._nin) if not self._byval[i])
        self._scalars = tuple(i for i in range(self._nin) if self._byval[i])
        self.nat_names = tuple(L.patc_kernel_nat_name(self._cpu, i).decode()
                               for i in range(L.patc_kernel_num_nats(self._cpu)))
        self._nat1 = self.nat_names[0] if len(self.nat_names) == 1 else None
        self._nats_set = frozenset(self.nat_names)
        self._nout = L.patc_kernel_num_outputs(self._cpu)
        self.count_of = tuple(L.patc_kernel_output_count_of(self._cpu, j) for j in range(self._nout))
        self._shapes = {}
        self._gk = {}
        # what patc._fast reads of the kernel (python/_fast.c's fast_kernel)
        self._fast = (self._nin, self.nat_names, self._shapes, self._gk, self._nout, name)
        del ctx

    def __repr__(self):
        return "<patc.Kernel %s(%d inputs, nats %s, %d outputs)>" % (self.name, self._nin, ", ".join(self.nat_names),
                                                                     self._nout)

    def _shape(self, natkey):
        """(nat array, (type, count, bytes) per input, same per output, (input, type,
        count, bytes) per array input, the nat array's address) for these nats."""
        ctx = self.program._cpu_ctx
        natarr = (c_longlong * max(len(natkey), 1))(*natkey)
        t, cnt, b = c_int(), c_longlong(), c_size_t()
        ins, outs = [], []
        with ctx.lock:
            for i in range(self._nin):
                ctx.check(L.patc_kernel_input_info(self._cpu, i, natarr, byref(t), byref(cnt), byref(b)),
                          "kernel %s" % self.name)
                ins.append((t.value, cnt.value, b.value))
            for j in range(self._nout):
                ctx.check(L.patc_kernel_output_info_at(self._cpu, j, natarr, byref(t), byref(cnt), byref(b)),
                          "kernel %s" % self.name)
                outs.append((t.value, cnt.value, b.value))
        # the arrays' (input, type, count, bytes), and the outputs' (type, count, bytes):
        # the per-call loops read these, nothing else of the shape
        arrs = tuple((i,) + ins[i] for i in self._arrays)
        sh = (natarr, tuple(ins), tuple(outs), arrs, addressof(natarr))
        if len(self._shapes) > 256:
            self._shapes.clear()
        self._shapes[natkey] = sh
        return sh

    def _natkey(self, nats):
        if nats.keys() != self._nats_set:
            missing = [n for n in self.nat_names if n not in nats]
            extra = [n for n in nats if n not in self._nats_set]
            parts = []
            if missing:
                parts.append("give %s by keyword" % ", ".join("%s=..." % n for n in missing))
            if extra:
                parts.append("%s %s no nat of it" % (", ".join(extra), "is" if len(extra) == 1 else "are"))
            raise InvalidArgumentError("kernel %s (nats: %s): %s" % (self.name, ", ".join(self.nat_names) or "none",
                                                                     "; ".join(parts)))
        try:
            return tuple([operator.index(nats[n]) for n in self.nat_names])
        except TypeError:
            raise InvalidArgumentError("kernel %s: a nat's value is an integer (%r)" % (self.name, nats))

    def _gpu_kernel(self, dev, ins):
        """(context, kernel handle, patc_arg array, output array, scalars' storage, the
        same as addresses for patc._fast: (argv, outv, kernel, ((input, type, storage)
        per scalar), the context's lock, wraps and handle)) of device dev. The arrays are
        the device's own, written under its context's lock: argv holds a patc_arg per
        input (.buffer at 2i, .value at 2i+1, set here once to the scalar's own storage,
        whose type no nat changes)."""
        ctx, prog = self.program._gpu_program(dev)
        h = c_void_p()
        ctx.check(L.patc_get_kernel(prog, self.name.encode(), byref(h)))
        argv = (c_void_p * max(2 * self._nin, 1))()
        outv = (c_void_p * max(self._nout, 1))()
        scal = [None] * self._nin
        for i in self._scalars:
            scal[i] = L.TYPE_CTYPES[ins[i][0]]()
            argv[2 * i + 1] = addressof(scal[i])
        fast = (addressof(argv), addressof(outv), h.value,
                tuple((i, ins[i][0], addressof(scal[i])) for i in self._scalars), ctx.lock, ctx.wraps, ctx.h)
        g = self._gk[dev] = (ctx, h, argv, outv, scal, fast)
        return g

    # A GPU call's host time is most of a small kernel's time on an idle GPU, so the path
    # of a call that passes its checks is written for it: the shape's tuples are read as
    # they are, a tuple of an array's description is compared in place (A.check is called
    # only to raise), kept wraps are looked up in the context's dict without a call, and
    # the launch goes through a ctypes function without argtypes, handed ctypes objects
    # (half the cost of converting through argtypes). bench/python_overhead.py times it.
    def __call__(self, *args, out=None, stream=None, device=None, **nats):
        if _fast_kernel is not None and device is None:  # the common case in C, where built
            r = _fast_kernel(self._fast, args, nats, out, stream)
            if r is not NotImplemented:
                return r
        if len(args) != self._nin:
            raise TypeError("kernel %s takes %d data parameters, %d given" % (self.name, self._nin, len(args)))
        n1 = self._nat1
        if n1 is not None and len(nats) == 1 and type(nats.get(n1)) is int:
            natkey = (nats[n1],)
        else:
            natkey = self._natkey(nats) if (nats or self.nat_names) else ()
        sh = self._shapes.get(natkey)
        if sh is None:
            sh = self._shape(natkey)
        natarr, ins, outs, arrs, _ = sh
        if stream is None:
            s = 0
        elif type(stream) is int:
            s = stream
        else:
            s = A.stream_handle(stream)
        descs = [None] * self._nin
        dev = lib = None
        handlers = A._handlers
        for i, wt, wn, wb in arrs:
            a = args[i]
            h = handlers.get(type(a))
            d = h(a, s) if h is not None else A.describe(a, s)
            if d is None:
                raise ArrayError("kernel %s: input %d is %s, not an array (PyTorch, CuPy, NumPy, "
                                 "__cuda_array_interface__ or __dlpack__)" % (self.name, i, type(a).__name__))
            if not (d[3] and d[1] == wt and d[2] == wn):
                A.check(d, wt, wn, "kernel %s: input %d", self.name, i)
            if dev is None:
                dev, lib = d[4], d[5]
            elif d[4] != dev:
                raise DeviceMismatchError("kernel %s: input %d is on %s, an earlier input on %s" %
                                          (self.name, i, _dev_name(d[4]), _dev_name(dev)))
            descs[i] = d
        if device is not None:
            want = _as_device(device)
            if want is not None and dev is not None and want != dev:
                raise DeviceMismatchError("kernel %s: device=%r, but the arrays are on %s" % (self.name, device,
                                                                                              _dev_name(dev)))
        else:
            want = None
        if dev is None:
            dev = -1 if want is None else want
            lib = A.NUMPY if dev < 0 else A.TORCH
            if dev >= 0:
                import torch
                A._init_torch(torch)
        if out is not None and self._nout == 1 and not isinstance(out, (tuple, list)):
            d = handlers.get(type(out))
            d = d(out, s) if d is not None else A.describe(out, s)
            t0 = outs[0]
            if d is None or not (d[3] and d[1] == t0[0] and d[2] == t0[1] and d[4] == dev):
                outarrs = self._outputs((out,), outs, lib, dev, s)  # raises
            else:
                outarrs = ((out, d),)
        else:
            outarrs = self._outputs(out, outs, lib, dev, s, args[arrs[0][0]] if arrs else None)
        if dev < 0:
            return self._run_cpu(args, descs, natarr, ins, outarrs)
        g = self._gk.get(dev)
        if g is None:
            g = self._gpu_kernel(dev, ins)
        if stream is None:
            s = A.current_stream(lib, dev)
        m = A._multi.get(lib)
        if m is None:
            m = A.multi_gpu(lib)
        if m:  # libpatrt makes dev's context current: the library's guard restores its own
            with A.device_guard(lib, dev):
                self._enqueue(g, s, args, arrs, descs, ins, natarr, outs, outarrs)
        else:
            self._enqueue(g, s, args, arrs, descs, ins, natarr, outs, outarrs)
        if self._nout == 1:
            return outarrs[0][0]
        return tuple(o for o, d in outarrs)

    def _enqueue(self, g, s, args, arrs, descs, ins, natarr, outs, outarrs):
        ctx, kh, argv, outv, scal, _ = g
        wraps = ctx.wraps
        with ctx.lock:
            if len(wraps) + len(arrs) + len(outarrs) > _MAX_WRAPS:
                ctx.room(len(arrs) + len(outarrs))
            for i in self._scalars:
                v = args[i]
                t = ins[i][0]
                scal[i].value = v if type(v) is float and t <= _F64 else _scalar(t, v, self.name, i)
            for i, wt, wn, wb in arrs:
                p = descs[i][0]
                b = wraps.get((p, wb))
                argv[2 * i] = b if b is not None else ctx.wrap(p, wb)
            j = 0
            for o, d in outarrs:
                p = d[0]
                wb = outs[j][2]
                b = wraps.get((p, wb))
                outv[j] = b if b is not None else ctx.wrap(p, wb)
                j += 1
            if s != ctx.stream:  # a ctypes call saved per launch on the same stream
                L.patc_set_stream(ctx.h, s)
                ctx.stream = s
            rc = _launch_enqueue(kh, natarr, argv, outv, None)
            if rc:
                ctx.check(rc, "kernel %s" % self.name)

    def _outputs(self, out, outs, lib, dev, s, like=None):
        """[(array, description)] per output: out='s, checked, or new ones. A new output
        of a torch.Tensor input's dtype is like.new_empty(count) (like: the first array
        input), which costs a fraction of torch.empty with dtype and device as keywords."""
        if out is None:
            res = []
            for t, cnt, b in outs:
                if lib == A.TORCH and type(like) is A._torch.Tensor and like.dtype == A._torch_dtypes[t]:
                    o = like.new_empty(cnt)
                else:
                    o = A.empty(lib, t, cnt, dev)
                res.append((o, (A.data_ptr(lib, o),)))
            return res
        if self._nout == 1 and not isinstance(out, (tuple, list)):
            out = (out,)
        if len(out) != self._nout:
            raise InvalidArgumentError("kernel %s has %d outputs; out= gives %d" % (self.name, self._nout, len(out)))
        res = []
        for j, o in enumerate(out):
            d = A.describe(o, s)
            if d is None:
                raise ArrayError("kernel %s: out[%d] is %s, not an array" % (self.name, j, type(o).__name__))
            A.check(d, outs[j][0], outs[j][1], "kernel %s: out[%d]", self.name, j)
            if d[4] != dev:
                raise DeviceMismatchError("kernel %s: out[%d] is on %s, the inputs on %s" %
                                          (self.name, j, _dev_name(d[4]), _dev_name(dev)))
            res.append((o, d))
        return res

    def _run_cpu(self, args, descs, natarr, ins, outarrs):
        ctx = self.program._cpu_ctx
        hv = (c_void_p * max(self._nin, 1))()
        ov = (c_void_p * max(self._nout, 1))()
        keep = []
        for i in range(self._nin):
            if self._byval[i]:
                c = L.TYPE_CTYPES[ins[i][0]](_scalar(ins[i][0], args[i], self.name, i))
                keep.append(c)
                hv[i] = addressof(c)
            else:
                hv[i] = descs[i][0]
        for j, (o, d) in enumerate(outarrs):
            ov[j] = d[0]
        with ctx.lock:
            rc = L.patc_interp_run_outputs(self._cpu, natarr, hv, ov)
            if rc:
                ctx.check(rc, "kernel %s" % self.name)
        if self._nout == 1:
            return outarrs[0][0]
        return tuple(o for o, d in outarrs)


def _dev_name(dev):
    return "the host" if dev < 0 else "CUDA device %d" % dev


# ---------------------------------------------------------------- ready-made algorithms

_algo_ctxs = {}
_algo_lock = threading.Lock()
_algos = {}

_OPS = {"add": L.OP_SUM, "sum": L.OP_SUM, "+": L.OP_SUM, "min": L.OP_MIN, "max": L.OP_MAX}
_ONE = {L.F32: "1.0f", L.F64: "1.0", L.I32: "1", L.U32: "1u", L.I64: "i64(1)", L.U64: "u64(1)"}
_TYPE_BY_NAME = {}
for _t, _n in enumerate(L.TYPE_NAMES):
    _TYPE_BY_NAME[_n] = _t
    _TYPE_BY_NAME[L.TYPE_DTYPE_NAMES[_t]] = _t


def _algo_ctx(dev):
    c = _algo_ctxs.get(dev)
    if c is None:
        with _algo_lock:
            c = _algo_ctxs.get(dev)
            if c is None:
                c = _algo_ctxs[dev] = _Ctx(dev)
    return c


def _op_spec(op, init, t):
    """(patc_op, lambda, init) of op= and init=."""
    if isinstance(op, str) and op in _OPS:
        if init is not None:
            raise InvalidArgumentError("init= is for an operator given as a lambda; op=%r has its own" % op)
        return _OPS[op], None, None
    if op in ("mul", "prod", "*"):
        return L.OP_LAMBDA, "fun(a => fun(b => a * b))", _ONE[t]
    if isinstance(op, str) and "fun" in op:
        if init is None:
            raise InvalidArgumentError("op given as a lambda needs init=, its neutral element as a .rise expression "
                                       "(e.g. init=\"0.0f\")")
        return L.OP_LAMBDA, op, str(init)
    raise InvalidArgumentError("op=%r: give \"add\", \"min\", \"max\", \"mul\" or a .rise lambda "
                               "\"fun(a => fun(b => ...))\" with init=" % (op,))


def _get_algo(ctx, key, spec_args):
    a = _algos.get(key)
    if a is None:
        alg, t, op, lam, init, names, types = spec_args
        spec = L.AlgoSpec()
        spec.algorithm, spec.type, spec.op = alg, t, op
        keep = []
        if lam is not None:
            keep.append(lam.encode())
            spec.lambda_ = keep[-1]
        if init is not None:
            keep.append(init.encode())
            spec.init = keep[-1]
        spec.nscalars = len(names)
        for i, (nm, ty) in enumerate(zip(names, types)):
            keep.append(nm.encode())
            spec.scalar_names[i] = keep[-1]
            spec.scalar_types[i] = ty
        h = c_void_p()
        with ctx.lock:
            ctx.check(L.patc_algo_create(ctx.h, byref(spec), byref(h)))
        a = _algos[key] = h.value
    return a


def _scalars_of(t, scalars, scalar_types, kw):
    """(names, types, ctypes values) of a predicate's or lambda's scalars."""
    if not scalars and not kw:
        return (), (), ()
    sc = dict(scalars or {})
    sc.update(kw)
    if len(sc) > L.ALGO_MAX_SCALARS:
        raise InvalidArgumentError("at most %d scalars, %d given" % (L.ALGO_MAX_SCALARS, len(sc)))
    names = tuple(sorted(sc))
    types = []
    for nm in names:
        ty = (scalar_types or {}).get(nm, t)
        if isinstance(ty, str):
            if ty not in _TYPE_BY_NAME:
                raise DtypeError("scalar_types[%r] = %r: give one of %s" % (nm, ty, ", ".join(L.TYPE_NAMES)))
            ty = _TYPE_BY_NAME[ty]
        types.append(ty)
    vals = [L.TYPE_CTYPES[ty](_scalar(ty, sc[nm], None, nm)) for nm, ty in zip(names, types)]
    return names, tuple(types), vals


_plans = {}  # (alg, op, init, lam, t, dev, stream, scalar names, scalar types) -> _Plan


class _Plan:
    """What a ready-made call needs beyond its arrays, found once per kind of call: the
    context and patc_algo of the device, and the operator's or predicate's spec (checked
    when the plan is made)."""

    __slots__ = ("ctx", "algo", "select", "pop")

    def __init__(self, alg, t, op, init, lam, dev, s, names, types, fname):
        self.select = alg in (L.ALGO_FILTER, L.ALGO_PARTITION, L.ALGO_PARTITION_STABLE)
        if self.select:
            if not isinstance(lam, str) or "fun" not in lam:
                raise InvalidArgumentError("patc.%s: the predicate is a .rise lambda of one element giving bool, e.g. "
                                           "\"fun(x => x > t)\" with t=0.5" % fname)
            pop, plam, pinit = 0, lam, None
        else:
            pop, plam, pinit = _op_spec(op, init, t)
        self.pop = pop
        self.ctx = _algo_ctx(dev)
        self.algo = _get_algo(self.ctx, (dev, alg, t, pop, plam, pinit, names, types, s),
                              (alg, t, pop, plam, pinit, names, types))


def _device_stream(dev, lib, device, stream, s, what):
    """The stream of a call on an input on device dev: s, or the library's current stream
    there when none was given; device= (if given) must name dev."""
    if device is not None:
        want = _as_device(device)
        if want is not None and want != dev:
            raise DeviceMismatchError("%s: device=%r, but the input is on %s" % (what, device, _dev_name(dev)))
    if dev >= 0 and stream is None:
        s = A.current_stream(lib, dev)
    return s


def _algo(alg, x, op, init, lam, out, count, sync, stream, device, scalars, scalar_types, kw, fname):
    s = A.stream_handle(stream) if stream is not None else 0
    h = A._handlers.get(type(x))
    d = h(x, s) if h is not None else A.describe(x, s)
    if d is None:
        raise ArrayError("patc.%s: the input is %s, not an array" % (fname, type(x).__name__))
    if not (d[3] and d[1] >= 0):
        A.check(d, -1, -1, "patc.%s: the input", fname)
    t, n, dev, lib = d[1], d[2], d[4], d[5]
    if t == L.BOOL:
        raise DtypeError("patc.%s: bool elements; the algorithms take float32, float64, int32, uint32, int64 and "
                         "uint64" % fname)
    s = _device_stream(dev, lib, device, stream, s, "patc." + fname)
    if scalars or kw:
        names, types, vals = _scalars_of(t, scalars, scalar_types, kw)
    else:
        names = types = vals = ()
    pk = (alg, op, init, lam, t, dev, s, names, types)
    try:
        plan = _plans.get(pk)
    except TypeError:  # an unhashable op= or init=: _Plan says what is wrong with it
        plan = pk = None
    if plan is None:
        plan = _Plan(alg, t, op, init, lam, dev, s, names, types, fname)
        if pk is not None:
            if len(_plans) > 1024:
                _plans.clear()
            _plans[pk] = plan
    select = plan.select
    if select and n >= 2**32:
        raise SizeError("patc.%s: at most 2^32-1 elements (the count is a u32); %d given" % (fname, n))
    nout = 1 if alg == L.ALGO_REDUCE else n
    if out is None:
        # a reduction's result is a 0-d array (a NumPy scalar for NumPy: one element);
        # a tensor's new_empty is x's dtype and device, and cheaper than torch.empty with
        # them as keywords: 0.5-0.65 us for a 0-d result, 0.2-0.3 us for n elements
        # (bench/results/2026-11-26-nvidia-h200-python-overhead/prof3.txt, first round)
        if lib == A.TORCH:
            o = x.new_empty(() if alg == L.ALGO_REDUCE else nout)
        else:
            o = A.empty(lib, t, () if alg == L.ALGO_REDUCE and lib != A.NUMPY else nout, dev)
        if lib == A.OTHER:  # an input of another library gets CuPy's or PyTorch's array
            od = A.describe(o, s)
            lib = od[5]
        else:
            od = (A.data_ptr(lib, o),)
    else:
        o = out
        od = A.describe(o, s)
        if od is None:
            raise ArrayError("patc.%s: out= is %s, not an array" % (fname, type(o).__name__))
        A.check(od, t, nout, "patc.%s: out=", fname)
        if od[4] != dev:
            raise DeviceMismatchError("patc.%s: out= is on %s, the input on %s" % (fname, _dev_name(od[4]),
                                                                                  _dev_name(dev)))
    cnt = None
    cptr = 0
    if select:
        cnt = A.count_array(lib, dev) if count is None else count
        cd = A.describe(cnt, s)
        if cd is None or cd[1] not in (L.I32, L.U32) or cd[2] < 1 or cd[4] != dev:
            raise ArrayError("patc.%s: count= is one int32 or uint32 element on the input's device" % fname)
        cptr = cd[0]
    if n == 0:
        return _empty_result(alg, o, cnt, lib, sync, plan.pop, fname)
    sv = (c_void_p * len(vals))(*[addressof(v) for v in vals]) if vals else None
    ctx = plan.ctx
    if dev >= 0 and A.multi_gpu(lib):
        with A.device_guard(lib, dev), ctx.lock:
            rc = L.patc_algo_enqueue_ptr(plan.algo, d[0], od[0], cptr, n, sv, s)
    elif dev >= 0:
        with ctx.lock:
            rc = L.patc_algo_enqueue_ptr(plan.algo, d[0], od[0], cptr, n, sv, s)
    else:
        with ctx.lock:
            rc = L.patc_algo_run_cpu(plan.algo, d[0], od[0], cptr or None, n, sv)
    if rc:
        ctx.check(rc, "patc.%s" % fname)
    if alg == L.ALGO_REDUCE:
        return o if out is not None or lib != A.NUMPY else o[0]
    return _result(alg, o, cnt, lib, sync, dev, out is not None, s if stream is not None and dev >= 0 else None)


def _result(alg, o, cnt, lib, sync, dev, given=False, stream=None):
    if alg == L.ALGO_REDUCE:
        if given or lib != A.NUMPY:
            return o
        return o[0]
    if cnt is None:
        return o
    if not sync:
        return o, cnt
    m = A.count_value(lib, cnt, stream)
    if alg == L.ALGO_FILTER:
        return o[:m]
    return o, m


def _empty_result(alg, o, cnt, lib, sync, op, fname):
    if alg == L.ALGO_REDUCE:
        if op != L.OP_SUM:
            raise InvalidArgumentError("patc.%s: the input is empty, and only a sum has a value then" % fname)
        o[...] = 0
        return _result(alg, o, None, lib, True, -1 if lib == A.NUMPY else 0)
    if cnt is None:
        return o[:0]
    cnt[0] = 0
    if not sync:
        return o[:0], cnt
    return o[:0] if alg == L.ALGO_FILTER else (o[:0], 0)


def reduce(x, op="add", *, init=None, out=None, stream=None, device=None, scalars=None, scalar_types=None, **kw):
    """x[0] op x[1] op ... op x[n-1] (patc_algo REDUCE): a NumPy scalar for a NumPy array,
    else a 0-d array of x's library on x's device, written by a launch on the current
    stream (no wait). op: "add", "min", "max", "mul", or a .rise lambda of two elements
    with init= its neutral element; scalars the lambda names are given by keyword."""
    if _fast_algo is not None and init is None and device is None and not scalars and not kw:
        r = _fast_algo(_REDUCE, x, op, out, stream, "patc.reduce")
        if r is not NotImplemented:
            return r
    return _algo(L.ALGO_REDUCE, x, op, init, None, out, None, True, stream, device, scalars, scalar_types, kw,
                 "reduce")


def inclusive_scan(x, op="add", *, init=None, out=None, stream=None, device=None, scalars=None, scalar_types=None,
                   **kw):
    """out[i] = x[0] op ... op x[i], a new 1-D array of x's library (or out=)."""
    if _fast_algo is not None and init is None and device is None and not scalars and not kw:
        r = _fast_algo(_INCLUSIVE_SCAN, x, op, out, stream, "patc.inclusive_scan")
        if r is not NotImplemented:
            return r
    return _algo(L.ALGO_INCLUSIVE_SCAN, x, op, init, None, out, None, True, stream, device, scalars, scalar_types,
                 kw, "inclusive_scan")


def exclusive_scan(x, op="add", *, init=None, out=None, stream=None, device=None, scalars=None, scalar_types=None,
                   **kw):
    """out[0] = the operator's neutral element, out[i] = x[0] op ... op x[i-1]."""
    if _fast_algo is not None and init is None and device is None and not scalars and not kw:
        r = _fast_algo(_EXCLUSIVE_SCAN, x, op, out, stream, "patc.exclusive_scan")
        if r is not NotImplemented:
            return r
    return _algo(L.ALGO_EXCLUSIVE_SCAN, x, op, init, None, out, None, True, stream, device, scalars, scalar_types,
                 kw, "exclusive_scan")


def filter(x, pred, *, out=None, count=None, sync=True, stream=None, device=None, scalars=None, scalar_types=None,
           **kw):
    """The elements of x for which pred holds, in order. pred is a .rise lambda of one
    element giving bool, e.g. "fun(x => x > t)", its scalars by keyword (t=0.5; of x's
    element type unless scalar_types={"t": "i32"} says otherwise). With sync=True (the
    default) the count is read back (a wait, as torch.masked_select's) and the result is
    the first m elements of the output; with sync=False the call does not wait and
    returns (out, count): all n elements of out, of which the first count[0] are the
    result (count: one int32 for PyTorch, uint32 otherwise)."""
    if _fast_select is not None and device is None and not scalars and scalar_types is None:
        r = _fast_select(_FILTER, x, pred, out, count, sync, stream, kw, "patc.filter")
        if r is not NotImplemented:
            return r
    return _algo(L.ALGO_FILTER, x, None, None, pred, out, count, sync, stream, device, scalars, scalar_types, kw,
                 "filter")


def partition(x, pred, *, stable=False, out=None, count=None, sync=True, stream=None, device=None, scalars=None,
              scalar_types=None, **kw):
    """(out, m): the m elements of x for which pred holds, in order, then the others: in
    reverse order (stable=False, as CUB's DevicePartition::If) or in order (stable=True).
    pred and sync as for filter; with sync=False, m is the one-element count array."""
    alg = L.ALGO_PARTITION_STABLE if stable else L.ALGO_PARTITION
    if _fast_select is not None and device is None and not scalars and scalar_types is None:
        r = _fast_select(alg, x, pred, out, count, sync, stream, kw, "patc.partition")
        if r is not NotImplemented:
            return r
    return _algo(alg, x, None, None, pred, out, count, sync, stream, device, scalars, scalar_types, kw, "partition")


_SORT_TYPES = (L.U32, L.I32, L.F32, L.U64, L.I64, L.F64)

# One sorter per (device, key type, value type or None, descending, stream): patc.h's
# one sorter per stream. An ascending sorter of keys alone is keyed (device, key type,
# stream), the key patc._fast's sort looks up.
_sorters = {}


def _sorter(ctx, dev, t, vt, desc, s, what):
    key = (dev, t, s) if vt is None and not desc else (dev, t, vt, desc, s)
    h = _sorters.get(key)
    if h is None:
        sp = L.SortSpec(key_type=t, values=int(vt is not None), value_type=0 if vt is None else vt,
                        descending=int(desc))
        hp = c_void_p()
        with ctx.lock:
            ctx.check(L.patc_sorter_create_spec(ctx.h, byref(sp), byref(hp)), what)
        h = _sorters[key] = hp.value  # freed with its context (patc_destroy)
    return h


def _sort_operand(x, out, s, what, role, like=None):
    """(d, o, od): x described on stream s (one of the sort's six types, contiguous), and
    its output, out= or a new array of x's library on x's device. s is the stream the
    sort runs on (_sort_stream's), so that a DLPack producer orders its work before it:
    the keys are described a second time here for that. like: the keys' description,
    whose length and device a values operand must have."""
    h = A._handlers.get(type(x))
    d = h(x, s) if h is not None else A.describe(x, s)
    if d is None:
        raise ArrayError("%s: the %s is %s, not an array" % (what, role, type(x).__name__))
    if not (d[3] and d[1] >= 0):
        A.check(d, -1, -1, "%s: the %s" % (what, role))
    t, n, dev, lib = d[1], d[2], d[4], d[5]
    if t not in _SORT_TYPES:
        raise DtypeError("%s: %s %s; the sort takes uint32, int32, float32, uint64, int64 and float64"
                         % (what, A.type_name(d), role))
    if like is not None:
        if n != like[2]:
            raise SizeError("%s: %d values for %d keys" % (what, n, like[2]))
        if dev != like[4]:
            raise DeviceMismatchError("%s: the values are on %s, the keys on %s" % (what, _dev_name(dev),
                                                                                  _dev_name(like[4])))
    if n > 2**40:
        raise SizeError("%s: at most 2^40 keys; %d given" % (what, n))
    if out is None:
        o = x.new_empty(n) if lib == A.TORCH else A.empty(lib, t, n, dev)
        od = A.describe(o, s)
    else:
        o = out
        od = A.describe(o, s)
        if od is None:
            raise ArrayError("%s: the %s's output is %s, not an array" % (what, role, type(o).__name__))
        A.check(od, t, n, "%s: the %s's output" % (what, role))
        if od[4] != dev:
            raise DeviceMismatchError("%s: the %s's output is on %s, the %s on %s" % (what, role, _dev_name(od[4]),
                                                                                       role, _dev_name(dev)))
    return d, o, od


def _sort_stream(x, stream, device, what):
    """The stream handle of a sort of x and x's description (device= checked)."""
    s = A.stream_handle(stream) if stream is not None else 0
    h = A._handlers.get(type(x))
    d = h(x, s) if h is not None else A.describe(x, s)
    if d is None:
        raise ArrayError("%s: the input is %s, not an array" % (what, type(x).__name__))
    dev, lib = d[4], d[5]
    return _device_stream(dev, lib, device, stream, s, what), dev, lib


def _sort_run(ctx, dev, lib, launch):
    """launch() under the context's lock (and the device's guard where the library sees
    several GPUs); its status returned."""
    if dev >= 0 and A.multi_gpu(lib):
        with A.device_guard(lib, dev), ctx.lock:
            rc = launch()
    else:
        with ctx.lock:
            rc = launch()
    return rc


def sort(x, *, descending=False, out=None, stream=None, device=None):
    """x's elements in ascending order, or descending with descending=True (patc_sort_keys:
    a radix sort of uint32, int32, float32, uint64, int64 or float64 keys, on the current
    stream, no wait: one launch up to 8192 keys, else a histogram, a scan and a pass per
    8 bits), a new 1-D array of x's library on x's device, or written into out= (which
    may be x itself: an in-place sort). Float keys in CUB's order: NaNs with the sign bit
    set first, -inf, ..., -0.0 and +0.0 as equals (in their input order), ..., +inf, then
    the other NaNs; descending is that order reversed but for equal keys, which keep their
    input order. NumPy arrays are sorted by the same kernels on the CPU interpreter."""
    if _fast_sort is not None and device is None and not descending:
        r = _fast_sort(x, out, stream)
        if r is not NotImplemented:
            return r
    s, dev, lib = _sort_stream(x, stream, device, "patc.sort")
    d, o, od = _sort_operand(x, out, s, "patc.sort", "input")
    t, n = d[1], d[2]
    if n == 0:
        return o
    ctx = _algo_ctx(dev)
    so = _sorter(ctx, dev, t, None, bool(descending), s, "patc.sort")
    if dev >= 0:
        rc = _sort_run(ctx, dev, lib, lambda: L.patc_sort_keys_ptr(so, d[0], od[0], n, s))
    else:
        rc = _sort_run(ctx, dev, lib, lambda: L.patc_sort_keys_cpu(so, d[0], od[0], n))
    if rc:
        ctx.check(rc, "patc.sort")
    return o


def sort_pairs(keys, values, *, descending=False, keys_out=None, values_out=None, stream=None, device=None):
    """(sorted keys, their values): keys sorted as patc.sort sorts them (stable: equal keys
    keep their input order), each value moved with its key (patc_sort_pairs). keys and
    values are 1-D arrays of one length on one device, each of uint32, int32, float32,
    uint64, int64 or float64; the outputs are new arrays of their libraries, or
    keys_out=/values_out= (either may be its input: in place). On the current stream, no
    wait. An argsort is sort_pairs(x, torch.arange(len(x), device=x.device))[1]."""
    what = "patc.sort_pairs"
    s, dev, lib = _sort_stream(keys, stream, device, what)
    d, o, od = _sort_operand(keys, keys_out, s, what, "keys")
    dv, vo, vod = _sort_operand(values, values_out, s, what, "values", like=d)
    n = d[2]
    if n == 0:
        return o, vo
    ctx = _algo_ctx(dev)
    so = _sorter(ctx, dev, d[1], dv[1], bool(descending), s, what)
    if dev >= 0:
        rc = _sort_run(ctx, dev, lib, lambda: L.patc_sort_pairs_ptr(so, d[0], od[0], dv[0], vod[0], n, s))
    else:
        rc = _sort_run(ctx, dev, lib, lambda: L.patc_sort_pairs_cpu(so, d[0], od[0], dv[0], vod[0], n))
    if rc:
        ctx.check(rc, what)
    return o, vo


def describe_algorithm(name, dtype="float32", n=1 << 20, op="add", pred=None, device=-1):
    """The settings a ready-made call uses at n (patc_algo_describe), e.g.
    "scan.pipe w=16 ipt=12 s=9 (built-in h100)"."""
    algs = {"reduce": L.ALGO_REDUCE, "inclusive_scan": L.ALGO_INCLUSIVE_SCAN, "exclusive_scan": L.ALGO_EXCLUSIVE_SCAN,
            "filter": L.ALGO_FILTER, "partition": L.ALGO_PARTITION, "partition_stable": L.ALGO_PARTITION_STABLE}
    alg = algs[name]
    t = _TYPE_BY_NAME[str(dtype).replace("torch.", "")]
    if alg in (L.ALGO_FILTER, L.ALGO_PARTITION, L.ALGO_PARTITION_STABLE):
        pop, plam, pinit = 0, pred or "fun(x => x > t)", None
        names, types = (("t",), (t,)) if pred is None else ((), ())
    else:
        pop, plam, pinit = _op_spec(op, None, t)
        names, types = (), ()
    ctx = _algo_ctx(device)
    a = _get_algo(ctx, (device, alg, t, pop, plam, pinit, names, types, None),
                  (alg, t, pop, plam, pinit, names, types))
    buf = create_string_buffer(256)
    with ctx.lock:
        ctx.check(L.patc_algo_describe(a, n, buf, 256))
    return buf.value.decode()


# ---------------------------------------------------------------- patc._fast


def _fast_fail(ctx, status, what):
    """A failed call of patc._fast's raises as the Python path's: ctx.check."""
    ctx.check(status, what)


_REDUCE, _INCLUSIVE_SCAN, _EXCLUSIVE_SCAN = L.ALGO_REDUCE, L.ALGO_INCLUSIVE_SCAN, L.ALGO_EXCLUSIVE_SCAN
_FILTER = L.ALGO_FILTER
_fast_kernel = _fast_algo = _fast_sort = _fast_select = None
if L._fast is not None:
    L._fast.setup(L.address_of(L.patc_algo_enqueue_ptr), L.address_of(L.patc_sort_keys_ptr),
                  L.address_of(L.patc_launch_args_enqueue), L.address_of(L.patc_set_stream), A._handlers,
                  A._describe_cai, A._TYPESTR, A._multi, A, _fast_fail, _plans, _sorters, _algo_ctxs,
                  sys.modules[__name__])
    _fast_kernel, _fast_algo, _fast_sort, _fast_select = L._fast.kernel, L._fast.algo, L._fast.sort, L._fast.select
