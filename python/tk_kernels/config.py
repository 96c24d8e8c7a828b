"""SM count and input checks: process-wide settings applied to every tk context."""

import sys

from . import _lib, _tensor


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def get_device_num_sms():
    """The current CUDA device's SM count (needs PyTorch with a CUDA device)."""
    torch = _torch_cuda()
    if torch is None:
        raise _lib.TkDeviceError(_lib.NO_DEVICE, 'tk_kernels.get_device_num_sms: needs PyTorch with a CUDA device')
    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


def set_num_sms(num_sms):
    """The SM count persistent grids size themselves for; 0 (a tk extension) restores the device's."""
    if not isinstance(num_sms, int) or num_sms < 0:
        raise _lib.invalid('set_num_sms', f'num_sms must be a non-negative int, got {num_sms!r}')
    if num_sms and 'torch' in sys.modules and _torch_cuda() is not None and num_sms > get_device_num_sms():
        raise _lib.invalid('set_num_sms', f'num_sms {num_sms} is above the device\'s {get_device_num_sms()} SMs')
    _tensor.apply_setting('num_sms', num_sms, _lib.lib().tk_set_num_sms, 'set_num_sms')


def get_num_sms():
    """The set_num_sms override, else the device's SM count."""
    return _tensor.setting('num_sms') or get_device_num_sms()


def set_input_checks(indices=False, finite=False):
    """tk's data checks (TK_CHECK_INDICES, TK_CHECK_FINITE): a debugging aid, one extra kernel and a wait each."""
    checks = (_lib.CHECK_INDICES if indices else 0) | (_lib.CHECK_FINITE if finite else 0)
    _tensor.apply_setting('checks', checks, _lib.lib().tk_set_input_checks, 'set_input_checks')


def get_input_checks():
    """(indices, finite): the checks set_input_checks turned on."""
    checks = _tensor.setting('checks')
    return bool(checks & _lib.CHECK_INDICES), bool(checks & _lib.CHECK_FINITE)
