"""tk's shipped operators with TileKernels' Python API, over libtk.so through ctypes.

Importing needs neither libtk.so, numpy nor torch: the library is loaded on the
first call (LibraryNotFoundError says where it looked), and a call works on
the tensors it is given (torch.Tensor on CUDA or CPU, numpy.ndarray on CPU).
"""

from . import config, engram, mhc, moe, quant, transpose
from ._lib import (LibraryNotFoundError, TkDeviceError, TkError, TkInvalidArgumentError, TkInvalidDataError,
                   TkOutOfMemoryError, TkUnsupportedError, version as library_version)
from .config import get_device_num_sms, get_input_checks, get_num_sms, set_input_checks, set_num_sms

__version__ = '0.1.0'

__all__ = ['config', 'engram', 'mhc', 'moe', 'quant', 'transpose', 'get_device_num_sms', 'get_num_sms',
           'set_num_sms', 'set_input_checks', 'get_input_checks', 'library_version', 'TkError',
           'TkInvalidArgumentError', 'TkUnsupportedError', 'TkDeviceError', 'TkOutOfMemoryError',
           'TkInvalidDataError', 'LibraryNotFoundError']
