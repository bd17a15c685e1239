/* patc._fast: the checked path of a small GPU call (a kernel, reduce, the scans, filter,
 * partition, sort) in C, beside the ctypes binding (python/src/patc/_core.py), which
 * stays the whole package without it.
 *
 * Each entry point takes one call as the Python function got it and either makes it
 * (the same checks, the same arrays, the same libpatrt calls as _core.py's path, with
 * the same context lock) or returns NotImplemented before anything is enqueued or kept
 * (at most a new output made and dropped: one the fast path cannot read), and the
 * caller goes on with the Python path, which then does everything, raising its own
 * errors.
 * So this file knows only the common case: PyTorch tensors, CuPy arrays and
 * __cuda_array_interface__ objects on one GPU, a call whose plan, kernel or sorter the Python path has made
 * before (kept in _core.py's dicts, which are read here), a stream given as an int or
 * not at all. Errors that the Python path raises after an allocation or a wrap (the
 * allocator's, patc_buffer_wrap's, the launch's status) are raised by the same Python
 * functions, called from here.
 *
 * libpatrt's functions come as addresses from the ctypes library object (setup()), so
 * the extension links with nothing and calls the library ctypes loaded. Built for the
 * stable ABI of Python 3.8 (python/CMakeLists.txt), one build serves every Python from
 * 3.8 on. docs/python.md, "Why ctypes, and a C fast path", gives the figures. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "patc.h"

enum { TORCH, CUPY, NUMPY, OTHER };      /* _arrays.py's library numbers */
enum { MAX_ARRAYS = 32, MAX_SCALARS = 32 }; /* more: the Python path */
enum { MAX_WRAPS = 1024 };                  /* _core._MAX_WRAPS */

typedef patc_status (*algo_enqueue_fn)(patc_algo *, unsigned long long, unsigned long long, unsigned long long,
                                       long long, const void *const *, void *);
typedef patc_status (*sort_fn)(patc_sorter *, unsigned long long, unsigned long long, long long, void *);
typedef patc_status (*launch_fn)(patc_kernel *, const long long *, const patc_arg *, patc_buffer *const *,
                                 const patc_launch_config *);
typedef void (*set_stream_fn)(patc_ctx *, void *);

/* What setup() and set_torch() hand over; the objects are owned references. */
static struct {
    algo_enqueue_fn algo_enqueue;
    sort_fn sort_keys;
    launch_fn launch;
    set_stream_fn set_stream;
    PyObject *handlers;    /* _arrays._handlers: type -> describing function */
    PyObject *cai_fn;      /* _arrays._describe_cai */
    PyObject *typestrs;    /* _arrays._TYPESTR */
    PyObject *multi;       /* _arrays._multi: lib -> whether it sees several GPUs */
    PyObject *arrays;      /* the module _arrays, whose empty(lib, t, count, dev) is looked up per call */
    PyObject *fail;        /* _core._fast_fail(ctx, status, what): raises */
    PyObject *plans;       /* _core._plans */
    PyObject *sorters;     /* _core._sorters */
    PyObject *algo_ctxs;   /* _core._algo_ctxs */
    PyObject *core;        /* the module _core, whose _result(...) is looked up per call */
    PyObject *torch_type;  /* torch.Tensor, or NULL before PyTorch is seen */
    PyObject *torch_dtypes;/* torch dtype -> patc_type */
    PyObject *torch_stream;/* dev -> the current CUstream as an int */
    PyObject *cupy_type;   /* cupy.ndarray, or NULL before CuPy is seen */
    PyObject *np_dtypes;   /* NumPy dtype -> patc_type (CuPy's dtypes are NumPy's) */
    PyObject *cupy_stream; /* dev -> CuPy's current CUstream as an int */
    int ready;
} G;

static PyObject *S_ptr, *S_size, *S_flags, *S_c_contiguous, *S_device, *S_id, *S_data_ptr, *S_dtype, *S_numel, *S_is_contiguous, *S_get_device, *S_new_empty, *S_cai,
    *S_typestr, *S_shape, *S_strides, *S_data, *S_dlpack_device, *S_lock, *S_acquire, *S_release,
    *S_empty, *S_dict, *S_count_array, *S_result, *S_stream, *S_algo, *S_ctx, *S_empty_tuple;

static const int TYPE_SIZES[] = {4, 8, 4, 4, 8, 8, 1}; /* per patc_type (patc.h's order) */

/* An array as _arrays.py describes it, the fields the fast path reads. */
typedef struct {
    unsigned long long ptr;
    long long n;
    int type, contig, dev, lib;
} Desc;

/* A Python int as a C value, or 0 with no error left set. (unsigned) long, 64 bits on
 * the LP64 platforms the package is built for: PyLong_AsUnsignedLongLong goes through
 * _PyLong_AsByteArray, several times slower on the hot path. */
_Static_assert(sizeof(long) == 8, "patc._fast reads 64-bit values as long");

static int as_ull(PyObject *o, unsigned long long *v)
{
    if (!o || !PyLong_Check(o)) return 0;
    *v = PyLong_AsUnsignedLong(o);
    if (*v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

static int as_ll(PyObject *o, long long *v)
{
    if (!o || !PyLong_Check(o)) return 0;
    *v = PyLong_AsLong(o);
    if (*v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* o.name() as a new reference, NULL with no error left set */
static PyObject *call0(PyObject *o, PyObject *name)
{
    PyObject *r = PyObject_CallMethodObjArgs(o, name, NULL);
    if (!r) PyErr_Clear();
    return r;
}

/* d[key], borrowed, NULL with no error left set */
static PyObject *dget(PyObject *d, PyObject *key)
{
    if (!d) return NULL;
    PyObject *r = PyDict_GetItemWithError(d, key);
    if (!r) PyErr_Clear();
    return r;
}

static int ll_of(PyObject *o, long long *v)
{
    int ok = as_ll(o, v);
    Py_XDECREF(o);
    return ok;
}

/* _arrays._describe_torch */
static int describe_torch(PyObject *x, Desc *d)
{
    long long v;
    unsigned long long p;
    PyObject *r = call0(x, S_data_ptr);
    int ok = as_ull(r, &p);
    Py_XDECREF(r);
    if (!ok) return 0;
    d->ptr = p;
    PyObject *dt = PyObject_GetAttr(x, S_dtype);
    if (!dt) {
        PyErr_Clear();
        return 0;
    }
    PyObject *t = dget(G.torch_dtypes, dt);
    Py_DECREF(dt);
    if (!t || !as_ll(t, &v)) return 0;
    d->type = (int)v;
    if (!ll_of(call0(x, S_numel), &d->n)) return 0;
    r = call0(x, S_is_contiguous);
    if (!r) return 0;
    d->contig = r == Py_True;
    Py_DECREF(r);
    if (!ll_of(call0(x, S_get_device), &v)) return 0;
    d->dev = (int)v;
    d->lib = TORCH;
    return 1;
}

/* Whether x has no __dlpack_device__ (then its device is 0, as _arrays._describe_cai
 * says), found without raising AttributeError on each call, which would cost more than
 * the rest of the description: per type, once, whether the type has none and no
 * attribute hook of its own (types_seen: type -> 1 when its instances have a __dict__ to
 * look in, 2 when they have none, 0 when the Python path asks each object); per object,
 * its __dict__. */
static PyObject *types_seen;

static int no_dlpack_device(PyObject *x)
{
    PyObject *tp = (PyObject *)Py_TYPE(x), *m = dget(types_seen, tp);
    long long mode;
    if (!m) {
        mode = 0;
        PyObject *ga = PyObject_GetAttrString(tp, "__getattribute__");
        PyObject *base = PyObject_GetAttrString((PyObject *)&PyBaseObject_Type, "__getattribute__");
        if (ga && base && ga == base && !PyObject_HasAttr(tp, S_dlpack_device) &&
            !PyObject_HasAttrString(tp, "__getattr__"))
            mode = PyObject_HasAttrString(x, "__dict__") ? 1 : 2;
        PyErr_Clear();
        Py_XDECREF(ga);
        Py_XDECREF(base);
        PyObject *v = PyLong_FromLongLong(mode);
        if (!v || PyDict_SetItem(types_seen, tp, v) < 0) PyErr_Clear();
        Py_XDECREF(v);
    } else if (!as_ll(m, &mode)) return 0;
    if (mode == 2) return 1;
    if (mode != 1) return 0;
    PyObject *dict = PyObject_GetAttr(x, S_dict);
    if (!dict) {
        PyErr_Clear();
        return 0;
    }
    int none = PyDict_Check(dict) && !dget(dict, S_dlpack_device);
    Py_DECREF(dict);
    return none;
}

/* _arrays._describe_cai, for an object without __dlpack_device__ (device 0) */
static int describe_cai(PyObject *x, Desc *d)
{
    int ok = 0;
    long long v;
    if (!no_dlpack_device(x)) return 0; /* a device of its own: the Python path asks it */
    PyObject *cai = PyObject_GetAttr(x, S_cai);
    if (!cai) {
        PyErr_Clear();
        return 0;
    }
    if (!PyDict_Check(cai)) goto done;
    PyObject *ts = dget(cai, S_typestr), *shape = dget(cai, S_shape), *data = dget(cai, S_data);
    PyObject *strides = dget(cai, S_strides);
    if (!ts || !shape || !data || !PyTuple_Check(data) || PyTuple_Size(data) < 1) goto done;
    PyObject *t = dget(G.typestrs, ts);
    if (!t || !as_ll(t, &v) || v < 0) goto done;
    d->type = (int)v;
    Py_ssize_t nd = PySequence_Size(shape);
    if (nd < 0 || nd > 64) {
        PyErr_Clear();
        goto done;
    }
    long long dims[64], n = 1;
    for (Py_ssize_t i = 0; i < nd; i++) {
        PyObject *e = PySequence_GetItem(shape, i);
        if (!ll_of(e, &dims[i])) goto done;
        n *= dims[i];
    }
    d->n = n;
    d->contig = 1;
    if (strides && strides != Py_None) { /* _arrays._c_contiguous */
        if (PySequence_Size(strides) != nd) {
            PyErr_Clear();
            goto done; /* zip() of unequal lengths: left to Python */
        }
        long long want = TYPE_SIZES[d->type];
        for (Py_ssize_t i = nd - 1; i >= 0; i--) {
            long long st;
            if (!ll_of(PySequence_GetItem(strides, i), &st)) goto done;
            if (dims[i] != 1 && st != want) {
                d->contig = 0;
                break;
            }
            want *= dims[i];
        }
    }
    PyObject *p = PyTuple_GetItem(data, 0);
    if (p == Py_None) d->ptr = 0;
    else if (!as_ull(p, &d->ptr)) goto done;
    d->dev = 0;
    d->lib = OTHER;
    ok = 1;
done:
    Py_DECREF(cai);
    return ok;
}

/* o.a.b as a C value, 0 with no error left set */
static int attr2(PyObject *o, PyObject *a, PyObject *b, PyObject **out)
{
    PyObject *m = PyObject_GetAttr(o, a);
    *out = m ? PyObject_GetAttr(m, b) : NULL;
    Py_XDECREF(m);
    if (!*out) PyErr_Clear();
    return *out != NULL;
}

/* _arrays._describe_cupy */
static int describe_cupy(PyObject *x, Desc *d)
{
    PyObject *v;
    long long t;
    if (!attr2(x, S_data, S_ptr, &v)) return 0;
    int ok = as_ull(v, &d->ptr);
    Py_DECREF(v);
    if (!ok) return 0;
    PyObject *dt = PyObject_GetAttr(x, S_dtype);
    if (!dt) {
        PyErr_Clear();
        return 0;
    }
    PyObject *tt = dget(G.np_dtypes, dt);
    Py_DECREF(dt);
    if (!tt || !as_ll(tt, &t)) return 0;
    d->type = (int)t;
    v = PyObject_GetAttr(x, S_size);
    if (!v) PyErr_Clear();
    if (!ll_of(v, &d->n)) return 0;
    if (!attr2(x, S_flags, S_c_contiguous, &v)) return 0;
    d->contig = v == Py_True;
    Py_DECREF(v);
    if (!attr2(x, S_device, S_id, &v)) return 0;
    if (!ll_of(v, &t)) return 0;
    d->dev = (int)t;
    d->lib = CUPY;
    return 1;
}

/* 1: x described; 0: not one the fast path takes (nothing set) */
static int describe(PyObject *x, Desc *d)
{
    if (G.torch_type && (PyObject *)Py_TYPE(x) == G.torch_type) return describe_torch(x, d);
    if (G.cupy_type && (PyObject *)Py_TYPE(x) == G.cupy_type) return describe_cupy(x, d);
    PyObject *h = dget(G.handlers, (PyObject *)Py_TYPE(x));
    if (h && h == G.cai_fn) return describe_cai(x, d);
    return 0;
}

/* stream= as a CUstream (0: none given yet: *given = 0) */
static int stream_of(PyObject *stream, unsigned long long *s, int *given)
{
    *given = stream != Py_None;
    *s = 0;
    if (!*given) return 1;
    return PyLong_CheckExact(stream) && as_ull(stream, s);
}

/* _arrays.current_stream, for the libraries the fast path takes */
static int current_stream(int lib, int dev, unsigned long long *s)
{
    if (lib == OTHER) {
        *s = 0;
        return 1;
    }
    PyObject *fn = lib == TORCH ? G.torch_stream : lib == CUPY ? G.cupy_stream : NULL;
    if (!fn) return 0;
    PyObject *d = PyLong_FromLong(dev);
    if (!d) {
        PyErr_Clear();
        return 0;
    }
    PyObject *r = PyObject_CallFunctionObjArgs(fn, d, NULL);
    Py_DECREF(d);
    if (!r) {
        PyErr_Clear();
        return 0;
    }
    int ok = as_ull(r, s);
    Py_DECREF(r);
    return ok;
}

/* one GPU seen by the library (_arrays.multi_gpu known and false) */
static int single_gpu(int lib)
{
    PyObject *k = PyLong_FromLong(lib);
    if (!k) {
        PyErr_Clear();
        return 0;
    }
    PyObject *m = dget(G.multi, k);
    Py_DECREF(k);
    return m == Py_False;
}

/* A new output as the Python path makes it: x.new_empty for a tensor input (shape: ()
 * or n), _arrays.empty otherwise. NULL with an exception (the allocator's) set. */
static PyObject *new_output(PyObject *x, int lib, int type, long long n, int zero_d, int dev)
{
    PyObject *shape = zero_d ? (Py_INCREF(S_empty_tuple), S_empty_tuple) : PyLong_FromLongLong(n);
    if (!shape) return NULL;
    PyObject *o;
    if (lib == TORCH && x) {
        o = PyObject_CallMethodObjArgs(x, S_new_empty, shape, NULL);
    } else {
        PyObject *a = Py_BuildValue("(iiOi)", lib, type, shape, dev), *empty = PyObject_GetAttr(G.arrays, S_empty);
        o = a && empty ? PyObject_CallObject(empty, a) : NULL;
        Py_XDECREF(empty);
        Py_XDECREF(a);
    }
    Py_DECREF(shape);
    return o;
}

static int lock_call(PyObject *lock, PyObject *name)
{
    PyObject *r = PyObject_CallMethodObjArgs(lock, name, NULL);
    if (!r) return 0;
    Py_DECREF(r);
    return 1;
}

/* lock.release(), an exception already raised (a failed call's) kept as the one raised:
 * 1 when there was none and the release went well */
static int release(PyObject *lock)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    int ok = lock_call(lock, S_release);
    if (t) {
        if (!ok) PyErr_Clear();
        PyErr_Restore(t, v, tb);
        return 0;
    }
    return ok;
}

/* the address of an output the fast path made (a tensor: data_ptr() alone) */
static int ptr_of(PyObject *o, unsigned long long *p)
{
    if (G.torch_type && (PyObject *)Py_TYPE(o) == G.torch_type) {
        PyObject *r = call0(o, S_data_ptr);
        int ok = as_ull(r, p);
        Py_XDECREF(r);
        return ok;
    }
    Desc d;
    if (!describe(o, &d)) return 0;
    *p = d.ptr;
    return 1;
}

/* _core._fast_fail(ctx, status, what): raises the status's exception */
static void fail(PyObject *ctx, int rc, PyObject *what)
{
    PyObject *r = PyObject_CallFunction(G.fail, "OiO", ctx, rc, what);
    Py_XDECREF(r);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "patc: a failed call raised nothing");
}

/* A scalar argument as _core._scalar converts it, for the values whose conversion
 * cannot fail: a float for a float type, an int in range for an integer type. */
typedef union {
    float f;
    double d;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
} Scalar;

static int scalar_of(PyObject *v, int t, Scalar *out)
{
    if (t == PATC_F32 || t == PATC_F64) {
        double x;
        if (Py_TYPE(v) == &PyFloat_Type) x = PyFloat_AsDouble(v);
        else if (PyLong_CheckExact(v)) {
            x = PyLong_AsDouble(v);
            if (x == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                return 0;
            }
        } else return 0;
        if (t == PATC_F32) out->f = (float)x;
        else out->d = x;
        return 1;
    }
    if (!PyLong_CheckExact(v)) return 0;
    long long x;
    unsigned long long u;
    switch (t) {
    case PATC_I32:
        if (!as_ll(v, &x) || x < INT32_MIN || x > INT32_MAX) return 0;
        out->i32 = (int32_t)x;
        return 1;
    case PATC_U32:
        if (!as_ull(v, &u) || u > UINT32_MAX) return 0;
        out->u32 = (uint32_t)u;
        return 1;
    case PATC_I64:
        if (!as_ll(v, &x)) return 0;
        out->i64 = x;
        return 1;
    case PATC_U64:
        if (!as_ull(v, &u)) return 0;
        out->u64 = u;
        return 1;
    default:
        return 0; /* bool: the Python path */
    }
}

static void scalar_store(void *at, int t, const Scalar *v)
{
    memcpy(at, v, (size_t)TYPE_SIZES[t]);
}

/* The scalars of a predicate given by keyword (kw), as _core._scalars_of makes them when
 * none has a type of its own: names sorted, each of the input's type t. 0: not for the
 * fast path (nothing set). */
static int select_scalars(PyObject *kw, int t, PyObject **names, PyObject **types, Scalar *vals, int *ns)
{
    Py_ssize_t n = PyDict_Size(kw);
    if (n < 0 || n > PATC_ALGO_MAX_SCALARS) {
        PyErr_Clear();
        return 0; /* more than four: the Python path says so */
    }
    PyObject *keys = PyDict_Keys(kw);
    if (!keys || PyList_Sort(keys) < 0) {
        Py_XDECREF(keys);
        PyErr_Clear();
        return 0;
    }
    PyObject *ty = PyLong_FromLong(t);
    *names = PyList_AsTuple(keys);
    *types = PyTuple_New(n);
    int ok = ty && *names && *types;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        PyObject *v = dget(kw, PyList_GetItem(keys, i));
        ok = v && scalar_of(v, t, &vals[i]);
        if (ok) {
            Py_INCREF(ty);
            PyTuple_SetItem(*types, i, ty);
        }
    }
    Py_DECREF(keys);
    Py_XDECREF(ty);
    if (!ok) {
        Py_CLEAR(*names);
        Py_CLEAR(*types);
        PyErr_Clear();
        return 0;
    }
    *ns = (int)n;
    return 1;
}

/* ------------------------------------------------------------------ the ready-made calls */

/* algo(alg, x, op, out, stream, what): reduce, inclusive_scan or exclusive_scan with a
 * named operator, no scalars, init= and device= not given (the caller checks). */
static PyObject *fast_algo(PyObject *self, PyObject *args)
{
    (void)self;
    long long alg;
    if (!G.ready || PyTuple_Size(args) != 6 || !as_ll(PyTuple_GetItem(args, 0), &alg)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *x = PyTuple_GetItem(args, 1), *op = PyTuple_GetItem(args, 2), *out = PyTuple_GetItem(args, 3),
             *stream = PyTuple_GetItem(args, 4), *what = PyTuple_GetItem(args, 5);
    Desc d, od;
    unsigned long long s;
    int given;
    if (!describe(x, &d) || !d.contig || d.type < 0 || d.type == PATC_BOOL || d.dev < 0 || d.n < 1 ||
        !stream_of(stream, &s, &given) || (!given && !current_stream(d.lib, d.dev, &s)) || !single_gpu(d.lib))
        Py_RETURN_NOTIMPLEMENTED;
    /* _core._plans' key: (alg, op, init, lam, t, dev, s, names, types) */
    PyObject *key = Py_BuildValue("(LOOOiiKOO)", alg, op, Py_None, Py_None, d.type, d.dev, s, S_empty_tuple,
                                  S_empty_tuple);
    if (!key) return NULL;
    PyObject *plan = dget(G.plans, key); /* an unhashable op: not found, the Python path says why */
    Py_DECREF(key);
    if (!plan) Py_RETURN_NOTIMPLEMENTED;
    Py_INCREF(plan);
    PyObject *ctx = NULL, *lock = NULL, *o = NULL, *res = NULL;
    unsigned long long ah;
    PyObject *a = PyObject_GetAttr(plan, S_algo);
    int ok = as_ull(a, &ah);
    Py_XDECREF(a);
    if (!ok || !(ctx = PyObject_GetAttr(plan, S_ctx)) || !(lock = PyObject_GetAttr(ctx, S_lock))) {
        PyErr_Clear();
        res = Py_NotImplemented;
        Py_INCREF(res);
        goto done;
    }
    long long nout = alg == PATC_ALGO_REDUCE ? 1 : d.n;
    if (out != Py_None) {
        if (!describe(out, &od) || !od.contig || od.type != d.type || od.n != nout || od.dev != d.dev) {
            res = Py_NotImplemented; /* the Python path raises */
            Py_INCREF(res);
            goto done;
        }
        o = out;
        Py_INCREF(o);
    } else {
        if (!(o = new_output(x, d.lib, d.type, nout, alg == PATC_ALGO_REDUCE, d.dev))) goto done;
        if (!ptr_of(o, &od.ptr)) { /* a library the fast path does not read: the Python path, again */
            res = Py_NotImplemented;
            Py_INCREF(res);
            goto done;
        }
    }
    if (!lock_call(lock, S_acquire)) goto done;
    patc_status rc;
    Py_BEGIN_ALLOW_THREADS
    rc = G.algo_enqueue((patc_algo *)(uintptr_t)ah, d.ptr, od.ptr, 0, d.n, NULL, (void *)(uintptr_t)s);
    Py_END_ALLOW_THREADS
    if (rc) fail(ctx, rc, what);
    if (!release(lock)) goto done;
    res = o;
    o = NULL;
done:
    Py_XDECREF(o);
    Py_XDECREF(lock);
    Py_XDECREF(ctx);
    Py_DECREF(plan);
    return res;
}

/* sort(x, out, stream): patc.sort with device= not given (the caller checks). */
static PyObject *fast_sort(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *x, *out, *stream;
    if (!G.ready || !PyArg_ParseTuple(args, "OOO", &x, &out, &stream)) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    Desc d, od;
    unsigned long long s;
    int given;
    if (!describe(x, &d) || !d.contig || d.type == PATC_BOOL ||
        d.dev < 0 || d.n < 1 || d.n >= (1LL << 32) || !stream_of(stream, &s, &given) ||
        (!given && !current_stream(d.lib, d.dev, &s)) || !single_gpu(d.lib))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *key = Py_BuildValue("(iiK)", d.dev, d.type, s); /* _core._sorters' key */
    if (!key) return NULL;
    PyObject *so = dget(G.sorters, key);
    Py_DECREF(key);
    PyObject *dk = PyLong_FromLong(d.dev);
    if (!dk) return NULL;
    PyObject *ctx = dget(G.algo_ctxs, dk);
    Py_DECREF(dk);
    unsigned long long sh;
    if (!so || !ctx || !as_ull(so, &sh)) Py_RETURN_NOTIMPLEMENTED;
    Py_INCREF(ctx);
    PyObject *lock = NULL, *o = NULL, *res = NULL;
    if (!(lock = PyObject_GetAttr(ctx, S_lock))) {
        PyErr_Clear();
        res = Py_NotImplemented;
        Py_INCREF(res);
        goto done;
    }
    if (out != Py_None) {
        if (!describe(out, &od) || !od.contig || od.type != d.type || od.n != d.n || od.dev != d.dev) {
            res = Py_NotImplemented;
            Py_INCREF(res);
            goto done;
        }
        o = out;
        Py_INCREF(o);
    } else {
        if (!(o = new_output(x, d.lib, d.type, d.n, 0, d.dev))) goto done;
        if (!ptr_of(o, &od.ptr)) {
            res = Py_NotImplemented;
            Py_INCREF(res);
            goto done;
        }
    }
    if (!lock_call(lock, S_acquire)) goto done;
    patc_status rc;
    Py_BEGIN_ALLOW_THREADS
    rc = G.sort_keys((patc_sorter *)(uintptr_t)sh, d.ptr, od.ptr, d.n, (void *)(uintptr_t)s);
    Py_END_ALLOW_THREADS
    if (rc) {
        PyObject *w = PyUnicode_FromString("patc.sort");
        if (w) {
            fail(ctx, rc, w);
            Py_DECREF(w);
        }
    }
    if (!release(lock)) goto done;
    res = o;
    o = NULL;
done:
    Py_XDECREF(o);
    Py_XDECREF(lock);
    Py_DECREF(ctx);
    return res;
}

/* select(alg, x, pred, out, count, sync, stream, kw, what): filter or partition with the
 * predicate's scalars by keyword (kw), device=, scalars= and scalar_types= not given
 * (the caller checks). A PyTorch input, or a __cuda_array_interface__ one with out= and
 * count= given (whose own outputs would be another library's). The result is
 * _core._result's, which reads the count back when sync is true. */
static PyObject *fast_select(PyObject *self, PyObject *args)
{
    (void)self;
    long long alg;
    if (!G.ready || !G.core || PyTuple_Size(args) != 9 || !as_ll(PyTuple_GetItem(args, 0), &alg))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *x = PyTuple_GetItem(args, 1), *pred = PyTuple_GetItem(args, 2), *out = PyTuple_GetItem(args, 3),
             *count = PyTuple_GetItem(args, 4), *sync = PyTuple_GetItem(args, 5), *stream = PyTuple_GetItem(args, 6),
             *kw = PyTuple_GetItem(args, 7), *what = PyTuple_GetItem(args, 8);
    Desc d, od, cd;
    unsigned long long s;
    int given;
    if (!PyDict_Check(kw) || !describe(x, &d) || !d.contig || d.type < 0 || d.type == PATC_BOOL || d.dev < 0 ||
        d.n < 1 || d.n >= (1LL << 32) || !stream_of(stream, &s, &given) ||
        (!given && !current_stream(d.lib, d.dev, &s)) || !single_gpu(d.lib) ||
        (d.lib == OTHER && (out == Py_None || count == Py_None)))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *names = NULL, *types = NULL;
    Scalar sv[PATC_ALGO_MAX_SCALARS];
    const void *svp[PATC_ALGO_MAX_SCALARS];
    int ns = 0;
    if (!select_scalars(kw, d.type, &names, &types, sv, &ns)) Py_RETURN_NOTIMPLEMENTED;
    for (int i = 0; i < ns; i++) svp[i] = &sv[i];
    /* _core._plans' key: (alg, op, init, lam, t, dev, s, names, types) */
    PyObject *key = Py_BuildValue("(LOOOiiKOO)", alg, Py_None, Py_None, pred, d.type, d.dev, s, names, types);
    Py_DECREF(names);
    Py_DECREF(types);
    if (!key) return NULL;
    PyObject *plan = dget(G.plans, key); /* an unhashable predicate: not found, the Python path says why */
    Py_DECREF(key);
    if (!plan) Py_RETURN_NOTIMPLEMENTED;
    Py_INCREF(plan);
    PyObject *ctx = NULL, *lock = NULL, *o = NULL, *cnt = NULL, *res = NULL;
    unsigned long long ah;
    PyObject *a = PyObject_GetAttr(plan, S_algo);
    int ok = as_ull(a, &ah);
    Py_XDECREF(a);
    if (!ok || !(ctx = PyObject_GetAttr(plan, S_ctx)) || !(lock = PyObject_GetAttr(ctx, S_lock))) {
        PyErr_Clear();
        goto fallback;
    }
    /* the checks of out= and count= before anything is made */
    if (out != Py_None && (!describe(out, &od) || !od.contig || od.type != d.type || od.n != d.n || od.dev != d.dev))
        goto fallback;
    if (count != Py_None && (!describe(count, &cd) || !(cd.type == PATC_I32 || cd.type == PATC_U32) || cd.n < 1 ||
                             cd.dev != d.dev))
        goto fallback;
    if (out != Py_None) {
        o = out;
        Py_INCREF(o);
    } else {
        if (!(o = new_output(x, d.lib, d.type, d.n, 0, d.dev))) goto done;
        if (!ptr_of(o, &od.ptr)) goto fallback;
    }
    if (count != Py_None) {
        cnt = count;
        Py_INCREF(cnt);
    } else { /* _arrays.count_array(lib, dev), looked up per call as the Python path does */
        PyObject *f = PyObject_GetAttr(G.arrays, S_count_array);
        cnt = f ? PyObject_CallFunction(f, "ii", d.lib, d.dev) : NULL;
        Py_XDECREF(f);
        if (!cnt) goto done;
        if (!describe(cnt, &cd) || !(cd.type == PATC_I32 || cd.type == PATC_U32) || cd.n < 1 || cd.dev != d.dev)
            goto fallback;
    }
    if (!lock_call(lock, S_acquire)) goto done;
    patc_status rc;
    Py_BEGIN_ALLOW_THREADS
    rc = G.algo_enqueue((patc_algo *)(uintptr_t)ah, d.ptr, od.ptr, cd.ptr, d.n, ns ? svp : NULL,
                        (void *)(uintptr_t)s);
    Py_END_ALLOW_THREADS
    if (rc) fail(ctx, rc, what);
    if (!release(lock)) goto done;
    /* _core._result(alg, o, cnt, lib, sync, dev, given, stream given or None) */
    {
        PyObject *f = PyObject_GetAttr(G.core, S_result);
        PyObject *sobj = given ? PyLong_FromUnsignedLongLong(s) : (Py_INCREF(Py_None), Py_None);
        if (f && sobj)
            res = PyObject_CallFunction(f, "LOOiOiOO", alg, o, cnt, d.lib, sync, d.dev,
                                        out != Py_None ? Py_True : Py_False, sobj);
        Py_XDECREF(f);
        Py_XDECREF(sobj);
    }
    goto done;
fallback:
    PyErr_Clear();
    res = Py_NotImplemented;
    Py_INCREF(res);
done:
    Py_XDECREF(cnt);
    Py_XDECREF(o);
    Py_XDECREF(lock);
    Py_XDECREF(ctx);
    Py_DECREF(plan);
    return res;
}

/* ------------------------------------------------------------------ a kernel's call */

/* The kept wrap of [p, p + bytes) in the context's dict, or ctx.wrap() making it (the
 * lock held). 0 with an exception set. */
static unsigned long long wrap_of(PyObject *ctx, PyObject *wraps, unsigned long long p, unsigned long long bytes)
{
    PyObject *a = PyLong_FromUnsignedLongLong(p), *b0 = PyLong_FromUnsignedLongLong(bytes);
    PyObject *key = a && b0 ? PyTuple_Pack(2, a, b0) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b0);
    if (!key) return 0;
    PyObject *b = PyDict_GetItemWithError(wraps, key);
    unsigned long long h = 0;
    if (b) {
        Py_DECREF(key);
        if (!as_ull(b, &h)) PyErr_SetString(PyExc_RuntimeError, "patc: a kept wrap is not an address");
        return h;
    }
    Py_DECREF(key);
    if (PyErr_Occurred()) return 0;
    PyObject *r = PyObject_CallMethod(ctx, "wrap", "KK", p, bytes);
    if (!r) return 0;
    if (!as_ull(r, &h) || !h) PyErr_SetString(PyExc_RuntimeError, "patc: ctx.wrap gave no address");
    Py_DECREF(r);
    return h;
}

static PyObject *kernel_call(PyObject *sh, long long nin, PyObject *args, PyObject *out, PyObject *stream,
                             PyObject *gks, PyObject *name);

/* kernel(fast, args, nats, out, stream): a Kernel's call with device= not given; fast is
 * the Kernel's _fast tuple (nin, nat names, shapes, gpu kernels, nout, name). */
static PyObject *fast_kernel(PyObject *self, PyObject *cargs)
{
    (void)self;
    if (!G.ready || PyTuple_Size(cargs) != 5) Py_RETURN_NOTIMPLEMENTED;
    PyObject *fast = PyTuple_GetItem(cargs, 0), *args = PyTuple_GetItem(cargs, 1), *nats = PyTuple_GetItem(cargs, 2),
             *out = PyTuple_GetItem(cargs, 3), *stream = PyTuple_GetItem(cargs, 4);
    if (!PyTuple_Check(fast) || !PyTuple_Check(args) || !PyDict_Check(nats)) Py_RETURN_NOTIMPLEMENTED;
    long long nin;
    PyObject *natnames, *shapes, *gks, *name;
    if (PyTuple_Size(fast) != 6 || !as_ll(PyTuple_GetItem(fast, 0), &nin)) Py_RETURN_NOTIMPLEMENTED;
    natnames = PyTuple_GetItem(fast, 1);
    shapes = PyTuple_GetItem(fast, 2);
    gks = PyTuple_GetItem(fast, 3);
    name = PyTuple_GetItem(fast, 5);
    if (PyTuple_Size(args) != nin || !PyTuple_Check(natnames) || PyTuple_Size(natnames) != PyDict_Size(nats))
        Py_RETURN_NOTIMPLEMENTED;
    /* the nats' key: every nat by keyword, each an int (the Python path checks the rest) */
    Py_ssize_t nn = PyTuple_Size(natnames);
    PyObject *key = PyTuple_New(nn);
    if (!key) return NULL;
    for (Py_ssize_t i = 0; i < nn; i++) {
        PyObject *v = dget(nats, PyTuple_GetItem(natnames, i));
        if (!v || !PyLong_CheckExact(v)) {
            Py_DECREF(key);
            Py_RETURN_NOTIMPLEMENTED;
        }
        Py_INCREF(v);
        PyTuple_SetItem(key, i, v);
    }
    PyObject *sh = dget(shapes, key); /* (natarr, ins, outs, arrs, natarr address) */
    Py_DECREF(key);
    if (!sh || PyTuple_Size(sh) != 5) Py_RETURN_NOTIMPLEMENTED;
    Py_INCREF(sh); /* held: an array's description may run Python code, which may drop it from shapes */
    PyObject *r = kernel_call(sh, nin, args, out, stream, gks, name);
    Py_DECREF(sh);
    return r;
}

/* fast_kernel's call of a shape sh: nin inputs args, out=, stream=, the kernel's
 * per-device tuples gks and its name */
static PyObject *kernel_call(PyObject *sh, long long nin, PyObject *args, PyObject *out, PyObject *stream,
                             PyObject *gks, PyObject *name)
{
    PyObject *outs = PyTuple_GetItem(sh, 2), *arrs = PyTuple_GetItem(sh, 3);
    unsigned long long natp;
    if (!as_ull(PyTuple_GetItem(sh, 4), &natp)) Py_RETURN_NOTIMPLEMENTED;
    Py_ssize_t na = PyTuple_Size(arrs), nout = PyTuple_Size(outs);
    if (na > MAX_ARRAYS || nout > MAX_ARRAYS || na < 1) Py_RETURN_NOTIMPLEMENTED; /* no array: device= says where */
    unsigned long long s;
    int given;
    if (!stream_of(stream, &s, &given)) Py_RETURN_NOTIMPLEMENTED;
    /* the inputs: (input, type, count, bytes) per array */
    unsigned long long ptr[MAX_ARRAYS], bytes[MAX_ARRAYS], optr[MAX_ARRAYS], obytes[MAX_ARRAYS];
    long long argi[MAX_ARRAYS];
    int dev = 0, lib = 0, type0 = -1;
    PyObject *x0 = NULL; /* the first array input */
    for (Py_ssize_t k = 0; k < na; k++) {
        PyObject *w = PyTuple_GetItem(arrs, k);
        long long i, wt, wn, wb;
        if (!w || !as_ll(PyTuple_GetItem(w, 0), &i) || !as_ll(PyTuple_GetItem(w, 1), &wt) ||
            !as_ll(PyTuple_GetItem(w, 2), &wn) || !as_ll(PyTuple_GetItem(w, 3), &wb) || i < 0 || i >= nin) {
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
        Desc d;
        if (!describe(PyTuple_GetItem(args, (Py_ssize_t)i), &d) || !d.contig || d.type != wt || d.n != wn)
            Py_RETURN_NOTIMPLEMENTED;
        if (k == 0) {
            dev = d.dev;
            lib = d.lib;
            type0 = d.type;
            x0 = PyTuple_GetItem(args, (Py_ssize_t)i);
        } else if (d.dev != dev) Py_RETURN_NOTIMPLEMENTED;
        ptr[k] = d.ptr;
        bytes[k] = (unsigned long long)wb;
        argi[k] = i;
    }
    if (dev < 0 || !single_gpu(lib) || (!given && !current_stream(lib, dev, &s))) Py_RETURN_NOTIMPLEMENTED;
    PyObject *dk = PyLong_FromLong(dev);
    if (!dk) return NULL;
    PyObject *g = dget(gks, dk); /* (ctx, kh, argv, outv, scal, (argv, outv, kh addresses, scalars, the
                                  * context's lock, wraps and handle)) */
    Py_DECREF(dk);
    if (!g || PyTuple_Size(g) != 6) Py_RETURN_NOTIMPLEMENTED;
    PyObject *ctx = PyTuple_GetItem(g, 0), *gf = PyTuple_GetItem(g, 5);
    unsigned long long argvp, outvp, kh, ch;
    PyObject *scals;
    if (!gf || PyTuple_Size(gf) != 7 || !as_ull(PyTuple_GetItem(gf, 0), &argvp) ||
        !as_ull(PyTuple_GetItem(gf, 1), &outvp) || !as_ull(PyTuple_GetItem(gf, 2), &kh) ||
        !PyTuple_Check(scals = PyTuple_GetItem(gf, 3)) || PyTuple_Size(scals) > MAX_SCALARS ||
        !PyDict_Check(PyTuple_GetItem(gf, 5)) || !as_ull(PyTuple_GetItem(gf, 6), &ch))
        Py_RETURN_NOTIMPLEMENTED;
    /* the scalars, converted before anything is done: (input, type, storage address) */
    Scalar sv[MAX_SCALARS];
    int st[MAX_SCALARS];
    unsigned long long sat[MAX_SCALARS];
    Py_ssize_t ns = PyTuple_Size(scals);
    for (Py_ssize_t k = 0; k < ns; k++) {
        PyObject *e = PyTuple_GetItem(scals, k);
        long long i, t;
        if (!e || !as_ll(PyTuple_GetItem(e, 0), &i) || !as_ll(PyTuple_GetItem(e, 1), &t) ||
            !as_ull(PyTuple_GetItem(e, 2), &sat[k]) || i < 0 || i >= nin || t < 0 || t > PATC_BOOL ||
            !scalar_of(PyTuple_GetItem(args, (Py_ssize_t)i), (int)t, &sv[k])) {
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
        st[k] = (int)t;
    }
    /* the outputs: out= (one array) checked, or new ones */
    PyObject *res = NULL, *lock = NULL, *wraps = NULL, *cur = NULL;
    if (out != Py_None) {
        Desc od;
        PyObject *o0 = PyTuple_GetItem(outs, 0);
        long long wt, wn, wb;
        if (nout != 1 || PyTuple_Check(out) || PyList_Check(out) || !describe(out, &od) || !od.contig ||
            !as_ll(PyTuple_GetItem(o0, 0), &wt) || !as_ll(PyTuple_GetItem(o0, 1), &wn) ||
            !as_ll(PyTuple_GetItem(o0, 2), &wb) || od.type != wt || od.n != wn || od.dev != dev) {
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
        res = out;
        Py_INCREF(res);
        optr[0] = od.ptr;
        obytes[0] = (unsigned long long)wb;
    } else {
        res = nout == 1 ? NULL : PyTuple_New(nout);
        if (nout != 1 && !res) return NULL;
        for (Py_ssize_t j = 0; j < nout; j++) {
            PyObject *oj = PyTuple_GetItem(outs, j);
            long long wt, wn, wb;
            if (!as_ll(PyTuple_GetItem(oj, 0), &wt) || !as_ll(PyTuple_GetItem(oj, 1), &wn) ||
                !as_ll(PyTuple_GetItem(oj, 2), &wb)) {
                PyErr_Clear();
                Py_XDECREF(res);
                Py_RETURN_NOTIMPLEMENTED;
            }
            /* a tensor of the first input's type: its new_empty, as _core's _outputs */
            PyObject *o = new_output(lib == TORCH && wt == type0 ? x0 : NULL, lib, (int)wt, wn, 0, dev);
            if (!o) {
                Py_XDECREF(res);
                return NULL;
            }
            if (!ptr_of(o, &optr[j])) {
                Py_DECREF(o);
                Py_XDECREF(res);
                Py_RETURN_NOTIMPLEMENTED;
            }
            obytes[j] = (unsigned long long)wb;
            if (nout == 1) res = o;
            else PyTuple_SetItem(res, j, o);
        }
    }
    lock = PyTuple_GetItem(gf, 4);
    wraps = PyTuple_GetItem(gf, 5);
    Py_INCREF(lock);
    Py_INCREF(wraps);
    if (!lock_call(lock, S_acquire)) {
        Py_CLEAR(res);
        goto out;
    }
    void **argv = (void **)(uintptr_t)argvp, **outv = (void **)(uintptr_t)outvp;
    for (Py_ssize_t k = 0; k < ns; k++) scalar_store((void *)(uintptr_t)sat[k], st[k], &sv[k]);
    int err = 0;
    if (PyDict_Size(wraps) + na + nout > MAX_WRAPS) { /* ctx.room(): no wrap of this launch freed under it */
        PyObject *r = PyObject_CallMethod(ctx, "room", "n", na + nout);
        if (!r) err = 1;
        Py_XDECREF(r);
    }
    for (Py_ssize_t k = 0; k < na && !err; k++) {
        unsigned long long h = wrap_of(ctx, wraps, ptr[k], bytes[k]);
        if (!h) err = 1;
        argv[2 * argi[k]] = (void *)(uintptr_t)h;
    }
    for (Py_ssize_t j = 0; j < nout && !err; j++) {
        unsigned long long h = wrap_of(ctx, wraps, optr[j], obytes[j]);
        if (!h) err = 1;
        outv[j] = (void *)(uintptr_t)h;
    }
    unsigned long long cs;
    if (!err) { /* patc_set_stream when the stream is another than the context's last */
        cur = PyObject_GetAttr(ctx, S_stream);
        if (!cur || !as_ull(cur, &cs)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "patc: a context without its handle");
            err = 1;
        } else if (cs != s) {
            PyObject *sobj = PyLong_FromUnsignedLongLong(s);
            if (!sobj) err = 1;
            else {
                G.set_stream((patc_ctx *)(uintptr_t)ch, (void *)(uintptr_t)s);
                if (PyObject_SetAttr(ctx, S_stream, sobj) < 0) err = 1;
                Py_DECREF(sobj);
            }
        }
    }
    if (!err) {
        patc_status rc;
        Py_BEGIN_ALLOW_THREADS
        rc = G.launch((patc_kernel *)(uintptr_t)kh, (const long long *)(uintptr_t)natp, (const patc_arg *)argv,
                      (patc_buffer *const *)outv, NULL);
        Py_END_ALLOW_THREADS
        if (rc) {
            PyObject *w = PyUnicode_FromFormat("kernel %U", name);
            if (w) {
                fail(ctx, rc, w);
                Py_DECREF(w);
            }
            err = 1;
        }
    }
    if (!release(lock) || err) Py_CLEAR(res);
out:
    Py_XDECREF(cur);
    Py_XDECREF(wraps);
    Py_XDECREF(lock);
    return res;
}

/* ------------------------------------------------------------------ setup */

static int fn_addr(PyObject *o, void **f)
{
    unsigned long long v;
    if (!as_ull(o, &v) || !v) {
        PyErr_SetString(PyExc_ValueError, "patc._fast.setup: a function address is a nonzero int");
        return 0;
    }
    *f = (void *)(uintptr_t)v;
    return 1;
}

static void keep(PyObject **slot, PyObject *o)
{
    PyObject *old = *slot;
    Py_XINCREF(o);
    *slot = o;
    Py_XDECREF(old);
}

/* setup(algo_enqueue, sort_keys, launch, set_stream, handlers, describe_cai, typestrs,
 * multi, the module _arrays, fail, plans, sorters, algo_ctxs, the module _core) */
static PyObject *setup(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *f[4], *o[10];
    if (!PyArg_ParseTuple(args, "OOOOO!OO!O!OOO!O!O!O", &f[0], &f[1], &f[2], &f[3], &PyDict_Type, &o[0], &o[1],
                          &PyDict_Type, &o[2], &PyDict_Type, &o[3], &o[4], &o[5], &PyDict_Type, &o[6], &PyDict_Type,
                          &o[7], &PyDict_Type, &o[8], &o[9]))
        return NULL;
    void *p[4];
    for (int i = 0; i < 4; i++)
        if (!fn_addr(f[i], &p[i])) return NULL;
    G.algo_enqueue = (algo_enqueue_fn)p[0];
    G.sort_keys = (sort_fn)p[1];
    G.launch = (launch_fn)p[2];
    G.set_stream = (set_stream_fn)p[3];
    keep(&G.handlers, o[0]);
    keep(&G.cai_fn, o[1]);
    keep(&G.typestrs, o[2]);
    keep(&G.multi, o[3]);
    keep(&G.arrays, o[4]);
    keep(&G.fail, o[5]);
    keep(&G.plans, o[6]);
    keep(&G.sorters, o[7]);
    keep(&G.algo_ctxs, o[8]);
    keep(&G.core, o[9]);
    G.ready = 1;
    Py_RETURN_NONE;
}

/* set_torch(torch.Tensor, {dtype: patc_type}, current raw stream function) */
static PyObject *set_torch(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *t, *dt, *st;
    if (!PyArg_ParseTuple(args, "OO!O", &t, &PyDict_Type, &dt, &st)) return NULL;
    keep(&G.torch_type, t);
    keep(&G.torch_dtypes, dt);
    keep(&G.torch_stream, st);
    Py_RETURN_NONE;
}

/* set_cupy(cupy.ndarray, {NumPy dtype: patc_type}, current stream function of dev) */
static PyObject *set_cupy(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *t, *dt, *st;
    if (!PyArg_ParseTuple(args, "OO!O", &t, &PyDict_Type, &dt, &st)) return NULL;
    keep(&G.cupy_type, t);
    keep(&G.np_dtypes, dt);
    keep(&G.cupy_stream, st);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS, "Hand over libpatrt's functions and _core's tables."},
    {"set_torch", set_torch, METH_VARARGS, "Hand over PyTorch's tensor type, dtypes and stream query."},
    {"set_cupy", set_cupy, METH_VARARGS, "Hand over CuPy's array type, NumPy's dtypes and CuPy's stream query."},
    {"algo", fast_algo, METH_VARARGS, "A reduce or scan call, or NotImplemented."},
    {"sort", fast_sort, METH_VARARGS, "A sort call, or NotImplemented."},
    {"select", fast_select, METH_VARARGS, "A filter or partition call, or NotImplemented."},
    {"kernel", fast_kernel, METH_VARARGS, "A kernel call, or NotImplemented."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "patc._fast", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fast(void)
{
    struct {
        PyObject **slot;
        const char *s;
    } names[] = {
        {&S_ptr, "ptr"}, {&S_size, "size"}, {&S_flags, "flags"}, {&S_c_contiguous, "c_contiguous"},
        {&S_device, "device"}, {&S_id, "id"}, {&S_data_ptr, "data_ptr"}, {&S_dtype, "dtype"}, {&S_numel, "numel"}, {&S_is_contiguous, "is_contiguous"},
        {&S_get_device, "get_device"}, {&S_new_empty, "new_empty"}, {&S_cai, "__cuda_array_interface__"},
        {&S_typestr, "typestr"}, {&S_shape, "shape"}, {&S_strides, "strides"}, {&S_data, "data"},
        {&S_dlpack_device, "__dlpack_device__"}, {&S_lock, "lock"}, {&S_acquire, "acquire"},
        {&S_release, "release"}, {&S_empty, "empty"}, {&S_dict, "__dict__"},
        {&S_count_array, "count_array"}, {&S_result, "_result"}, {&S_stream, "stream"},
        {&S_algo, "algo"}, {&S_ctx, "ctx"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!(*names[i].slot = PyUnicode_InternFromString(names[i].s))) return NULL;
    if (!(S_empty_tuple = PyTuple_New(0)) || !(types_seen = PyDict_New())) return NULL;
    return PyModule_Create(&module);
}
