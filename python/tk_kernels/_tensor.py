"""Tensors in, tk_tensor descriptors out: PyTorch tensors and NumPy arrays.

numpy and torch are never imported here unless the caller already did (an
array of that library was passed), so either may be absent. A call runs on
the device of its tensors: CUDA tensors on the current PyTorch stream, host
tensors (NumPy, or PyTorch on the CPU) on tk's CPU path.
"""

import ctypes
import sys
import threading

from . import _lib

_ALIGN = 64  # host allocations: tk reads 16-byte vectors; 64 also keeps cache lines whole


def _align(x, y):
    return (x + y - 1) // y * y


class _Numpy:
    name = 'numpy'
    _CODES = {'bfloat16': _lib.BF16, 'float16': _lib.F16, 'float32': _lib.F32, 'float8_e4m3fn': _lib.F8_E4M3,
              'int8': _lib.I8, 'uint8': _lib.U8, 'int32': _lib.I32, 'int64': _lib.I64, 'int16': _lib.I16,
              'bool': _lib.U8}

    @staticmethod
    def matches(obj):
        np = sys.modules.get('numpy')
        return np is not None and isinstance(obj, np.ndarray)

    def code(self, obj):
        return self._CODES.get(obj.dtype.name)

    def dtype_name(self, obj):
        return obj.dtype.name

    def native(self, code):
        import numpy as np
        if code in (_lib.BF16, _lib.F8_E4M3):
            try:
                import ml_dtypes
            except ImportError:
                raise ImportError('tk_kernels needs the ml_dtypes package for bfloat16 and float8_e4m3fn '
                                  'NumPy arrays (pip install ml_dtypes)') from None
            return ml_dtypes.bfloat16 if code == _lib.BF16 else ml_dtypes.float8_e4m3fn
        return {_lib.F16: np.float16, _lib.F32: np.float32, _lib.I8: np.int8, _lib.U8: np.uint8,
                _lib.I32: np.int32, _lib.I64: np.int64, _lib.I16: np.int16}[code]

    def device(self, obj):
        return ('cpu', -1)

    def layout(self, obj):
        size = obj.itemsize
        if any(s % size for s in obj.strides):
            return None
        return obj.ctypes.data, tuple(obj.shape), tuple(s // size for s in obj.strides), _lib.DEVICE_CPU

    def empty(self, shape, code, like):
        return self.alloc(shape, self.native(code), like)

    def alloc(self, shape, dtype, like):
        import numpy as np
        dtype = np.dtype(dtype)
        nbytes = dtype.itemsize
        for s in shape:
            nbytes *= s
        buf = np.empty(nbytes + _ALIGN, np.uint8)
        off = (-buf.ctypes.data) % _ALIGN
        return buf[off:off + nbytes].view(dtype).reshape(shape)

    def zeros(self, shape, code, like):
        out = self.empty(shape, code, like)
        out.fill(0)
        return out

    def stream(self, obj):
        return None

    def writeable(self, obj):
        return obj.flags.writeable

    def guard(self, obj):
        return _NullGuard()

    def to_list(self, obj):
        return obj.tolist()


class _Torch:
    name = 'torch'
    _CODES = {'torch.bfloat16': _lib.BF16, 'torch.float16': _lib.F16, 'torch.float32': _lib.F32,
              'torch.float8_e4m3fn': _lib.F8_E4M3, 'torch.int8': _lib.I8, 'torch.uint8': _lib.U8,
              'torch.int32': _lib.I32, 'torch.int64': _lib.I64, 'torch.int16': _lib.I16, 'torch.bool': _lib.U8}
    _NATIVE = {_lib.BF16: 'bfloat16', _lib.F16: 'float16', _lib.F32: 'float32', _lib.F8_E4M3: 'float8_e4m3fn',
               _lib.I8: 'int8', _lib.U8: 'uint8', _lib.I32: 'int32', _lib.I64: 'int64', _lib.I16: 'int16'}

    @staticmethod
    def matches(obj):
        torch = sys.modules.get('torch')
        return torch is not None and isinstance(obj, torch.Tensor)

    def code(self, obj):
        return self._CODES.get(str(obj.dtype))

    def dtype_name(self, obj):
        return str(obj.dtype)

    def native(self, code):
        import torch
        return getattr(torch, self._NATIVE[code])

    def device(self, obj):
        dev = obj.device
        if dev.type == 'cuda':
            import torch
            return ('cuda', dev.index if dev.index is not None else torch.cuda.current_device())
        return (dev.type, -1)

    def layout(self, obj):
        if obj.device.type not in ('cuda', 'cpu'):
            return None
        kind = _lib.DEVICE_CUDA if obj.device.type == 'cuda' else _lib.DEVICE_CPU
        return obj.data_ptr(), tuple(obj.shape), tuple(obj.stride()), kind

    def empty(self, shape, code, like):
        return self.alloc(shape, self.native(code), like)

    def alloc(self, shape, dtype, like):
        import torch
        return torch.empty(tuple(shape), dtype=dtype, device=like.device)

    def zeros(self, shape, code, like):
        import torch
        return torch.zeros(tuple(shape), dtype=self.native(code), device=like.device)

    def writeable(self, obj):
        return True

    def stream(self, obj):
        if obj.device.type != 'cuda':
            return None
        import torch
        return torch.cuda.current_stream(obj.device).cuda_stream

    def guard(self, obj):
        if obj.device.type != 'cuda':
            return _NullGuard()
        import torch
        # tk binds a context to the CUDA context current at its first launch: make it the tensor's.
        return torch.cuda.device(obj.device)

    def to_list(self, obj):
        return obj.tolist()


class _NullGuard:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_ADAPTERS = (_Torch(), _Numpy())


def adapter(obj, function, arg):
    for a in _ADAPTERS:
        if a.matches(obj):
            return a
    raise TypeError(f'tk_kernels.{function}: {arg} must be a torch.Tensor or a numpy.ndarray, '
                    f'not {type(obj).__name__}')


# ---- contexts: one per process per device, created on first use ----

_contexts = {}
_ctx_lock = threading.Lock()
_settings = {'num_sms': 0, 'checks': 0}


def context(device):
    ctx = _contexts.get(device)
    if ctx is not None:
        return ctx
    with _ctx_lock:
        ctx = _contexts.get(device)
        if ctx is None:
            lib = _lib.lib()
            handle = ctypes.c_void_p()
            _lib.check(lib.tk_context_create(ctypes.byref(handle)), 'tk_context_create')
            if _settings['num_sms']:
                _lib.check(lib.tk_set_num_sms(handle, _settings['num_sms']), 'set_num_sms')
            if _settings['checks']:
                _lib.check(lib.tk_set_input_checks(handle, _settings['checks']), 'set_input_checks')
            _contexts[device] = ctx = handle
    return ctx


def apply_setting(key, value, setter, function):
    """Records a process-wide setting and applies it to every context made so far."""
    with _ctx_lock:
        for handle in _contexts.values():
            _lib.check(setter(handle, value), function)
        _settings[key] = value


def setting(key):
    return _settings[key]


def contexts():
    return dict(_contexts)


# ---- one operator call ----

class Call:
    """Describes the tensors of one call, allocates its outputs like its anchor, runs it.

    `anchor` is the call's first tensor: its library allocates the outputs and
    its device picks the context and stream.
    """

    def __init__(self, function, anchor, arg='x', c_name=None):
        self.function = function
        self.c_name = c_name or function.rsplit('.', 1)[-1]
        self.ad = adapter(anchor, function, arg)
        self.like = anchor
        self.device = self.ad.device(anchor)
        self._keep = []

    def invalid(self, message):
        return _lib.invalid(self.function, message)

    def required(self, **tensors):
        """TkError (invalid argument) for a required tensor given as None."""
        for arg, obj in tensors.items():
            if obj is None:
                raise self.invalid(f'{arg} is required, got None')

    def check_same(self, obj, arg):
        ad = adapter(obj, self.function, arg)
        if ad is not self.ad:
            raise self.invalid(f'{arg} is a {ad.name} tensor but the call\'s first tensor is a {self.ad.name} one')
        if ad.device(obj) != self.device:
            raise self.invalid(f'{arg} is on {_dev(ad.device(obj))} but the call\'s first tensor is on '
                               f'{_dev(self.device)}')
        return ad

    def t(self, obj, arg):
        """A pointer to obj's tk_tensor (None for None)."""
        if obj is None:
            return None
        ad = self.check_same(obj, arg)
        code = ad.code(obj)
        if code is None:
            raise self.invalid(f'{arg} has dtype {ad.dtype_name(obj)}, which tk has no type for')
        lay = ad.layout(obj)
        if lay is None:
            raise self.invalid(f'{arg} is on {_dev(ad.device(obj))}, or has strides that are not whole elements: '
                               'tk takes CUDA or host memory with whole-element strides')
        data, shape, strides, kind = lay
        if 0 in shape:
            # NumPy gives empty arrays zero strides, which tk's layout checks refuse; no element is addressed.
            strides = _row_major(shape)
        if len(shape) > _lib.TK_MAX_DIMS:
            raise self.invalid(f'{arg} has {len(shape)} dimensions; tk takes at most {_lib.TK_MAX_DIMS}')
        d = _lib.TkTensor()
        d.data, d.dtype, d.ndim, d.device = data or None, code, len(shape), kind
        for i, (n, s) in enumerate(zip(shape, strides)):
            d.shape[i], d.strides[i] = n, s
        self._keep.append(d)
        return ctypes.byref(d)

    def w(self, obj, arg):
        """t() for a tensor the call writes that the caller gave: a read-only array is refused."""
        if obj is not None and not self.check_same(obj, arg).writeable(obj):
            raise self.invalid(f'{arg} is written by the call but is read-only (a NumPy array with writeable=False)')
        return self.t(obj, arg)

    def code(self, obj):
        return self.ad.code(obj)

    def empty(self, shape, code):
        return self.ad.empty(shape, code, self.like)

    def zeros(self, shape, code):
        return self.ad.zeros(shape, code, self.like)

    def empty_as(self, obj, shape, arg='x'):
        """An uninitialised tensor of obj's own dtype (bool stays bool)."""
        self.check_same(obj, arg)
        return self.ad.alloc(shape, obj.dtype, self.like)

    def empty_sf(self, rows, cols, code, col_major):
        """Scale factors (rows, cols); column-major as strides (1, align(rows, 4)) over padded storage."""
        if not col_major:
            return self.empty((rows, cols), code)
        return self.empty((cols, _align(rows, 4)), code)[:, :rows].T

    def reshape(self, obj, shape):
        return obj.reshape(shape)

    def to_list(self, obj):
        return self.ad.to_list(obj)

    def run(self, *args):
        ctx = context(self.device)
        fn = _lib.op(self.c_name)
        # ctypes wraps an integer past its C type silently (2**32 + 2 would reach tk as 2).
        for i, (value, ctype) in enumerate(zip(args, fn.argtypes[1:]), start=1):
            limits = _INT_LIMITS.get(ctype)
            if limits and isinstance(value, int) and not limits[0] <= value <= limits[1]:
                raise self.invalid(f'integer argument {i} of tk_{self.c_name} is {value}, outside the C '
                                   f'{ctype.__name__} range [{limits[0]}, {limits[1]}]')
        with self.ad.guard(self.like):
            stream = self.ad.stream(self.like)
            status = fn(ctx, *args, stream)
        _lib.check(status, self.function)


_INT_LIMITS = {ctypes.c_int32: (-2**31, 2**31 - 1), ctypes.c_uint32: (0, 2**32 - 1),
               ctypes.c_int64: (-2**63, 2**63 - 1), ctypes.c_int: (-2**31, 2**31 - 1)}


def _row_major(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _dev(device):
    return device[0] if device[1] < 0 else f'{device[0]}:{device[1]}'


def i32x2(function, arg, pair):
    """A (b, g) pair as the int32[2] the C API takes (None stays None)."""
    if pair is None:
        return None
    try:
        a, b = (int(v) for v in pair)
    except (TypeError, ValueError):
        raise _lib.invalid(function, f'{arg} must be a pair of ints, got {pair!r}') from None
    if not all(-2**31 <= v < 2**31 for v in (a, b)):
        raise _lib.invalid(function, f'{arg} {pair!r} does not fit int32')
    return (ctypes.c_int32 * 2)(a, b)


def f32p(value):
    """An optional float as the `const float *` the C API takes."""
    return None if value is None else ctypes.byref(ctypes.c_float(float(value)))


def align(x, y):
    return _align(x, y)


def ceil_div(x, y):
    return (x + y - 1) // y
