"""Quantizing operators (TileKernels' tile_kernels.quant)."""

from ._cast import (cast_back, per_block_cast, per_block_cast_lossless, per_block_cast_with_precomputed_sf,
                    per_block_cast_with_sf_only, per_token_cast, per_token_cast_back,
                    per_token_cast_with_precomputed_sf, per_token_cast_with_sf_only)
from ._channel import per_channel_cast, per_channel_cast_and_transpose, per_channel_cast_fused
from ._swiglu import (swiglu_backward_and_per_token_cast, swiglu_forward_and_per_channel_cast_and_transpose,
                      swiglu_forward_and_per_token_cast)
from .common import unpack_from_e2m1fn_x2
from .types import QuantTensor

__all__ = ['cast_back', 'per_block_cast', 'per_block_cast_lossless', 'per_block_cast_with_precomputed_sf',
           'per_block_cast_with_sf_only', 'per_channel_cast', 'per_channel_cast_and_transpose',
           'per_channel_cast_fused', 'per_token_cast', 'per_token_cast_back', 'per_token_cast_with_precomputed_sf',
           'per_token_cast_with_sf_only', 'swiglu_backward_and_per_token_cast',
           'swiglu_forward_and_per_channel_cast_and_transpose', 'swiglu_forward_and_per_token_cast',
           'unpack_from_e2m1fn_x2', 'QuantTensor']
