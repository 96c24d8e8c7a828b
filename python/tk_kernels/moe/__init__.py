"""MoE routing operators (TileKernels' tile_kernels.moe)."""

from ._fused import expand_to_fused, expand_to_fused_with_sf, get_fused_mapping, reduce_fused
from ._gate import (aux_fi, group_count, inplace_unique_group_indices, mask_indices_by_tp, normalize_weight,
                    top2_sum_gate, topk_gate, topk_sum_and_topk_group_idx)
from .scoring import ScoringFunc

__all__ = ['aux_fi', 'expand_to_fused', 'expand_to_fused_with_sf', 'get_fused_mapping', 'group_count',
           'inplace_unique_group_indices', 'mask_indices_by_tp', 'normalize_weight', 'reduce_fused',
           'top2_sum_gate', 'topk_gate', 'topk_sum_and_topk_group_idx', 'ScoringFunc']
