"""Routing gates and index utilities (moe.md 2.1-2.8)."""

from .. import _lib
from .._tensor import Call
from .scoring import ScoringFunc


def _shape(call, t, rank, arg):
    if len(t.shape) != rank:
        raise call.invalid(f'{arg} must be {rank}-D, got shape {tuple(t.shape)}')
    return tuple(t.shape)


def topk_gate(scores, num_topk):
    """The num_topk best experts per token of fp32 scores (N, E): int64 (N, num_topk), ties to the lower index."""
    c = Call('moe.topk_gate', scores, 'scores')
    n, _ = _shape(c, scores, 2, 'scores')
    topk_idx = c.empty((n, max(num_topk, 0)), _lib.I64)
    c.run(c.t(scores, 'scores'), num_topk, c.t(topk_idx, 'topk_idx'))
    return topk_idx


def topk_sum_and_topk_group_idx(scores, num_topk_sum, num_topk_groups):
    """The num_topk_groups best groups of scores (N, G, epg) by the sum of their num_topk_sum best: int64 (N, Kg)."""
    c = Call('moe.topk_sum_and_topk_group_idx', scores, 'scores')
    n = _shape(c, scores, 3, 'scores')[0]
    group_idx = c.empty((n, max(num_topk_groups, 0)), _lib.I64)
    c.run(c.t(scores, 'scores'), num_topk_sum, num_topk_groups, c.t(group_idx, 'group_idx'))
    return group_idx


def top2_sum_gate(logits, bias, num_topk, num_topk_groups, num_groups, use_shared_as_routed, num_shared_experts,
                  routed_scaling_factor, ep_rank, num_ep_ranks, tp_rank, num_tp_ranks, scoring_func, mask=None,
                  fix_routing_mask=None, to_physical_map=None, logical_count=None, unmapped_topk_idx=None):
    """The full routing gate of one rank: returns (topk_idx int64 (N, K + S), topk_weights fp32 (N, K + S)).

    scoring_func: 'sigmoid', 'sqrtsoftplus' or 'softmax' (or a ScoringFunc). unmapped_topk_idx (N, K) int64
    is written in place (and read for the rows fix_routing_mask selects).
    """
    function = 'moe.top2_sum_gate'
    if isinstance(scoring_func, str):
        try:
            scoring = ScoringFunc.from_str(scoring_func)
        except ValueError as e:
            raise _lib.invalid(function, str(e)) from None
    else:
        scoring = ScoringFunc(int(scoring_func))
    shared = num_shared_experts if use_shared_as_routed else 0  # ignored unless shared experts are routed
    c = Call(function, logits, 'logits')
    n = _shape(c, logits, 2, 'logits')[0]
    topk_idx = c.empty((n, max(num_topk + shared, 0)), _lib.I64)
    topk_weights = c.empty((n, max(num_topk + shared, 0)), _lib.F32)
    c.run(c.t(logits, 'logits'), c.t(bias, 'bias'), num_topk, num_topk_groups, num_groups,
          1 if use_shared_as_routed else 0, shared, float(routed_scaling_factor), ep_rank, num_ep_ranks, tp_rank,
          num_tp_ranks, int(scoring), c.t(mask, 'mask'), c.t(fix_routing_mask, 'fix_routing_mask'),
          c.t(to_physical_map, 'to_physical_map'), c.t(logical_count, 'logical_count'),
          c.t(unmapped_topk_idx, 'unmapped_topk_idx'), c.t(topk_idx, 'topk_idx'), c.t(topk_weights, 'topk_weights'))
    return topk_idx, topk_weights


def normalize_weight(topk_weights):
    """Returns (denominator (N,), normalized_weights (N, K)): each row divided by 1e-20 + its sum."""
    c = Call('moe.normalize_weight', topk_weights, 'topk_weights')
    n, k = _shape(c, topk_weights, 2, 'topk_weights')
    denominator = c.empty((n,), _lib.F32)
    normalized = c.empty((n, k), _lib.F32)
    c.run(c.t(topk_weights, 'topk_weights'), c.t(denominator, 'denominator'), c.t(normalized, 'normalized_weights'))
    return denominator, normalized


def mask_indices_by_tp(indices, n, num_ep_ranks, tp_rank, num_tp_ranks):
    """Expert ids owned by this TP rank renumbered locally, the others -1; same shape and dtype as indices."""
    c = Call('moe.mask_indices_by_tp', indices, 'indices')
    masked = c.empty_as(indices, tuple(indices.shape), 'indices')
    c.run(c.t(indices, 'indices'), n, num_ep_ranks, tp_rank, num_tp_ranks, c.t(masked, 'masked_indices'))
    return masked


def aux_fi(topk_idx, num_experts, num_aux_topk):
    """Per-expert load fraction fi (E,) fp32 of int64 topk_idx (N, K) for the auxiliary loss."""
    c = Call('moe.aux_fi', topk_idx, 'topk_idx')
    fi = c.zeros((max(num_experts, 0),), _lib.F32)
    c.run(c.t(topk_idx, 'topk_idx'), num_experts, num_aux_topk, c.t(fi, 'fi'))
    return fi


def group_count(group_idx, num_groups):
    """counts (num_groups,) int32: how often each id in [0, num_groups) occurs in int64 group_idx (N, K)."""
    c = Call('moe.group_count', group_idx, 'group_idx')
    counts = c.zeros((max(num_groups, 0),), _lib.I32)
    c.run(c.t(group_idx, 'group_idx'), num_groups, c.t(counts, 'counts'))
    return counts


def inplace_unique_group_indices(group_indices, num_groups):
    """In each row of int64 group_indices (N, K), later repeats of an id become -1, in place. Returns None."""
    c = Call('moe.inplace_unique_group_indices', group_indices, 'group_indices')
    c.run(c.w(group_indices, 'group_indices'), num_groups)
