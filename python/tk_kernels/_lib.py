"""Finding and loading libtk.so, the C API's prototypes, and its errors.

Nothing here runs at import time: the library is loaded on the first call
that needs it, so `import tk_kernels` works on a machine without libtk.so
(and says why only when an operator is called).
"""

import ctypes
import ctypes.util
import os
import threading

TK_MAX_DIMS = 8

# tk_dtype (include/tk/tk.h).
BF16, F16, F32, F8_E4M3, I8, U8, I32, I64, I16 = range(9)
DTYPE_NAMES = {BF16: 'bf16', F16: 'f16', F32: 'f32', F8_E4M3: 'e4m3', I8: 'i8', U8: 'u8', I32: 'i32', I64: 'i64',
               I16: 'i16'}

DEVICE_CUDA, DEVICE_CPU = 0, 1

# tk_status.
SUCCESS, INVALID_ARGUMENT, UNSUPPORTED, NO_DRIVER, NO_DEVICE, COMPILE, LAUNCH, INTERNAL, OUT_OF_MEMORY, \
    INVALID_DATA = range(10)

# Scale-factor flags and input checks.
SF_COL_MAJOR, ROUND_SF, PACKED_UE8M0 = 1, 2, 4
CHECK_INDICES, CHECK_FINITE = 1, 2


class TkTensor(ctypes.Structure):
    _fields_ = [('data', ctypes.c_void_p), ('dtype', ctypes.c_int), ('ndim', ctypes.c_int32),
                ('shape', ctypes.c_int64 * TK_MAX_DIMS), ('strides', ctypes.c_int64 * TK_MAX_DIMS),
                ('device', ctypes.c_int)]


# ---- errors ----

class TkError(RuntimeError):
    """A tk call failed: .status is the tk_status code, .message tk's text."""

    def __init__(self, status, message, function=None):
        self.status = status
        self.message = message
        self.function = function
        super().__init__(f'{message} [{status_name(status)}]' if message else status_name(status))


class TkInvalidArgumentError(TkError, ValueError):
    """TK_ERROR_INVALID_ARGUMENT: a shape, dtype, stride or option breaks the contract."""


class TkUnsupportedError(TkError, NotImplementedError):
    """TK_ERROR_UNSUPPORTED: valid per the spec, not available in this build."""


class TkDeviceError(TkError):
    """TK_ERROR_NO_DRIVER / TK_ERROR_NO_DEVICE: no CUDA driver or no device tk can use."""


class TkOutOfMemoryError(TkError, MemoryError):
    """TK_ERROR_OUT_OF_MEMORY."""


class TkInvalidDataError(TkError, ValueError):
    """TK_ERROR_INVALID_DATA: the tensors' values break a precondition; outputs are unspecified."""


class LibraryNotFoundError(ImportError):
    """libtk.so could not be found or loaded; the message lists where it looked."""


_ERROR_CLASSES = {INVALID_ARGUMENT: TkInvalidArgumentError, UNSUPPORTED: TkUnsupportedError,
                  NO_DRIVER: TkDeviceError, NO_DEVICE: TkDeviceError, OUT_OF_MEMORY: TkOutOfMemoryError,
                  INVALID_DATA: TkInvalidDataError}
_STATUS_NAMES = ['TK_SUCCESS', 'TK_ERROR_INVALID_ARGUMENT', 'TK_ERROR_UNSUPPORTED', 'TK_ERROR_NO_DRIVER',
                 'TK_ERROR_NO_DEVICE', 'TK_ERROR_COMPILE', 'TK_ERROR_LAUNCH', 'TK_ERROR_INTERNAL',
                 'TK_ERROR_OUT_OF_MEMORY', 'TK_ERROR_INVALID_DATA']


def status_name(status):
    return _STATUS_NAMES[status] if 0 <= status < len(_STATUS_NAMES) else f'tk_status {status}'


def make_error(status, message, function=None):
    return _ERROR_CLASSES.get(status, TkError)(status, message, function)


def invalid(function, message):
    """A Python-side argument error, shaped like tk's own (same class and status)."""
    return TkInvalidArgumentError(INVALID_ARGUMENT, f'tk_kernels.{function}: {message}', function)


# ---- locating the library ----

def _candidates():
    """(path, why) pairs in search order; TK_LIBRARY, when set, is the only one."""
    env = os.environ.get('TK_LIBRARY')
    if env:
        return [(env, 'TK_LIBRARY')]
    found = []
    for d in os.environ.get('PATH', '').split(os.pathsep):
        exe = os.path.join(d or '.', 'tk')
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            continue
        prefix = os.path.dirname(os.path.abspath(d or '.'))
        # An install (prefix/bin/tk -> prefix/lib/libtk.so), then a build tree (build/bin, build/kernels).
        for sub in ('lib', 'lib64', 'kernels'):
            found.append((os.path.join(prefix, sub, 'libtk.so'), f'next to {exe}'))
    name = ctypes.util.find_library('tk')
    found.append((name, 'ctypes.util.find_library("tk")'))
    return found


def _load():
    tried = []
    for path, why in _candidates():
        if path is None:
            tried.append(f'{why}: nothing found')
            continue
        if os.sep in path and not os.path.exists(path):
            tried.append(f'{path} ({why}): no such file')
            continue
        try:
            handle = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f'{path} ({why}): {e}')
            continue
        # find_library("tk") may name Tcl/Tk's libtk8.6.so: accept only a library with tk's C API.
        if not all(hasattr(handle, 'tk_' + name) for name in _OPS):
            tried.append(f'{path} ({why}): not tk\'s C API, or an older one (missing tk_* entry points)')
            continue
        return handle
    raise LibraryNotFoundError(
        'tk_kernels could not load libtk.so. Set TK_LIBRARY to its path, put an installed tk '
        '(PREFIX/bin/tk beside PREFIX/lib/libtk.so) on PATH, or make it visible to the dynamic loader. '
        'Looked at:\n  ' + '\n  '.join(tried))


# ---- prototypes ----

_T = ctypes.POINTER(TkTensor)
_i32, _u32, _i64, _f32, _vp = ctypes.c_int32, ctypes.c_uint32, ctypes.c_int64, ctypes.c_float, ctypes.c_void_p
_pi32, _pf32, _pi64 = ctypes.POINTER(_i32), ctypes.POINTER(_f32), ctypes.POINTER(_i64)
_ctx, _enum, _st = _vp, ctypes.c_int, _vp

# name: argument types after the context (every operator ends with the stream).
_OPS = {
    'per_token_cast': [_T, _T, _pi32, _enum, _i32, _u32, _T, _T, _st],
    'per_token_cast_with_sf_only': [_T, _T, _pi32, _enum, _i32, _u32, _T, _st],
    'per_token_cast_with_precomputed_sf': [_T, _enum, _i32, _T, _u32, _T, _st],
    'per_block_cast': [_T, _enum, _pi32, _u32, _T, _T, _st],
    'per_block_cast_with_sf_only': [_T, _enum, _pi32, _u32, _T, _st],
    'per_block_cast_with_precomputed_sf': [_T, _enum, _pi32, _T, _u32, _T, _st],
    'per_block_cast_lossless': [_T, _T, _pi32, _enum, _pi32, _u32, _T, _T, _st],
    'per_channel_cast': [_T, _enum, _i32, _u32, _T, _T, _st],
    'per_channel_cast_fused': [_T, _T, _enum, _i32, _u32, _i32, _T, _T, _T, _st],
    'per_channel_cast_and_transpose': [_T, _enum, _i32, _u32, _T, _T, _st],
    'swiglu_forward_and_per_token_cast': [_T, _enum, _i32, _T, _T, _T, _u32, _pf32, _T, _pf32, _T, _T, _st],
    'swiglu_backward_and_per_token_cast': [_T, _T, _T, _T, _T, _T, _i32, _u32, _pf32, _T, _T, _T, _T, _T, _st],
    'swiglu_forward_and_per_channel_cast_and_transpose': [_T, _enum, _i32, _u32, _i32, _pf32, _T, _T, _st],
    'cast_back': [_T, _T, _pi32, _T, _st],
    'transpose': [_T, _T, _st],
    'batched_transpose': [_T, _T, _st],
    'topk_gate': [_T, _i32, _T, _st],
    'topk_sum_and_topk_group_idx': [_T, _i32, _i32, _T, _st],
    'normalize_weight': [_T, _T, _T, _st],
    'mask_indices_by_tp': [_T, _i64, _i32, _i32, _i32, _T, _st],
    'aux_fi': [_T, _i32, _i32, _T, _st],
    'group_count': [_T, _i32, _T, _st],
    'inplace_unique_group_indices': [_T, _i32, _st],
    'top2_sum_gate': [_T, _T, _i32, _i32, _i32, _i32, _i32, _f32, _i32, _i32, _i32, _i32, _enum,
                      _T, _T, _T, _T, _T, _T, _T, _st],
    'get_fused_mapping': [_T, _i32, _i32, _T, _T, _T, _T, _T, _T, _T, _pi64, _st],
    'expand_to_fused': [_T, _T, _T, _T, _st],
    'expand_to_fused_with_sf': [_T, _T, _i32, _T, _T, _i32, _T, _T, _st],
    'reduce_fused': [_T, _T, _T, _T, _T, _T, _st],
    'engram_hash': [_T, _T, _T, _T, _T, _st],
    'engram_fused_weight': [_T, _T, _T, _st],
    'engram_gate_fwd': [_T, _T, _T, _T, _f32, _f32, _T, _T, _T, _T, _T, _st],
    'engram_gate_bwd': [_T, _T, _T, _T, _T, _T, _T, _T, _T, _f32, _T, _T, _T, _T, _st],
    'engram_grad_w_reduce': [_T, _T, _T, _T, _T, _st],
    'expand_to_mhc_fwd': [_T, _T, _st],
    'expand_to_mhc_bwd': [_T, _T, _st],
    'mhc_pre_apply_mix_fwd': [_T, _T, _T, _st],
    'mhc_pre_apply_mix_bwd': [_T, _T, _T, _i32, _T, _T, _st],
    'mhc_post_fwd': [_T, _T, _T, _T, _T, _st],
    'mhc_post_bwd': [_T, _T, _T, _T, _T, _T, _T, _T, _T, _st],
    'sinkhorn_normalize_fwd': [_T, _i32, _f32, _T, _st],
    'sinkhorn_normalize_bwd': [_T, _T, _i32, _f32, _T, _st],
    'mhc_pre_split_mixes_fwd': [_T, _T, _T, _f32, _f32, _T, _T, _T, _st],
    'mhc_pre_split_mixes_bwd': [_T, _T, _T, _T, _T, _T, _T, _f32, _T, _T, _T, _st],
    'mhc_head_compute_mix_fwd': [_T, _T, _T, _f32, _T, _st],
    'mhc_head_compute_mix_bwd': [_T, _T, _T, _T, _T, _T, _T, _st],
    'mhc_pre_norm_fn_fwd': [_T, _T, _T, _f32, _T, _T, _T, _st],
    'mhc_pre_norm_fn_bwd': [_T, _T, _T, _T, _T, _T, _f32, _i32, _T, _T, _T, _st],
    'mhc_pre_big_fuse': [_T, _T, _T, _T, _f32, _f32, _f32, _f32, _i32, _T, _T, _T, _st],
    'mhc_multilayer_recompute': [_T, _i32, _T, _i32, _T, _T, _T, _T, _T, _st],
}

_OTHER = {
    'tk_last_error': (ctypes.c_char_p, []),
    'tk_status_string': (ctypes.c_char_p, [_enum]),
    'tk_version': (ctypes.c_char_p, []),
    'tk_context_create': (_enum, [ctypes.POINTER(_vp)]),
    'tk_context_destroy': (_enum, [_vp]),
    'tk_set_num_sms': (_enum, [_ctx, _i32]),
    'tk_get_num_sms': (_enum, [_ctx, _pi32]),
    'tk_set_input_checks': (_enum, [_ctx, _u32]),
    'tk_get_input_checks': (_enum, [_ctx, ctypes.POINTER(_u32)]),
    'tk_fused_mapping_max_positions': (_i64, [_i64, _i64, _i64, _i64]),
    'tk_engram_make_offsets': (_enum, [_pi32, _i64, _i64, _i64, _pi32]),
}

_lib = None
_lock = threading.Lock()


def lib():
    """The loaded libtk.so with prototypes set (LibraryNotFoundError if it cannot be loaded)."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                handle = _load()
                for name, argtypes in _OPS.items():
                    fn = getattr(handle, 'tk_' + name)
                    fn.restype, fn.argtypes = _enum, [_ctx] + argtypes
                for name, (restype, argtypes) in _OTHER.items():
                    fn = getattr(handle, name)
                    fn.restype, fn.argtypes = restype, argtypes
                _lib = handle
    return _lib


def last_error():
    return (lib().tk_last_error() or b'').decode('utf-8', 'replace')


def check(status, function):
    """Raises the exception of a failed tk call; call on the thread that made it."""
    if status != SUCCESS:
        raise make_error(status, last_error(), function)


def version():
    """libtk's version string, e.g. '0.1.0 (commit abcdef)'."""
    return lib().tk_version().decode()


def op(name):
    return getattr(lib(), 'tk_' + name)
