"""mHC operators (TileKernels' tile_kernels.modeling.mhc ops), forward and backward as plain functions.

Tensors keep the reference's shapes: residual streams [..., n, H] bf16, rows [..., H] bf16, mixes [..., n, 1]
and [..., n, n] fp32; they are passed to tk flattened to (T, n, H), (T, H), (T, n) and (T, n, n), so they must
be contiguous (a tensor tk writes into, too). The per-element sums run in the spec's order with one rounding per
term (docs/mhc_kernels.md).
"""

from .. import _lib
from .._tensor import Call, _row_major

def _flat(c, obj, tail, arg, flat_tail=None):
    """obj, of shape [..., *tail], seen as (T, *flat_tail) without a copy (flat_tail defaults to tail): a
    TkError when its shape does not end in `tail` or its elements are not contiguous."""
    if obj is None:
        return None
    c.check_same(obj, arg)
    shape = tuple(int(d) for d in obj.shape)
    if len(shape) < len(tail) or shape[len(shape) - len(tail):] != tuple(tail):
        raise c.invalid(f'{arg} has shape {shape}; expected [..., {", ".join(map(str, tail))}]')
    lay = c.ad.layout(obj)
    if lay is not None:
        _, dims, strides, _ = lay
        if any(n > 1 and s != r for n, s, r in zip(dims, strides, _row_major(dims))):
            raise c.invalid(f'{arg} must be contiguous, got strides {tuple(strides)} for shape {tuple(dims)}')
    return c.reshape(obj, (-1,) + tuple(tail if flat_tail is None else flat_tail))


def _same_tokens(c, a, a_arg, a_tail, b, b_arg, b_tail):
    """a [..., *a_tail] and b [..., *b_tail] have the same leading dimensions (as the reference asserts)."""
    lead_a, lead_b = tuple(a.shape[:len(a.shape) - a_tail]), tuple(b.shape[:len(b.shape) - b_tail])
    if lead_a != lead_b:
        raise c.invalid(f'{a_arg} has leading dimensions {lead_a} but {b_arg} has {lead_b}')


def _streams(c, x, arg):
    """(n, H) of an [..., n, H] tensor."""
    if len(x.shape) < 2:
        raise c.invalid(f'{arg} must be [..., n, H], got shape {tuple(x.shape)}')
    return int(x.shape[-2]), int(x.shape[-1])


def expand_to_mhc(hidden, mhc_mult, out=None):
    """[..., H] -> [..., mhc_mult, H] bf16: every stream a copy of the row."""
    c = Call('mhc.expand_to_mhc', hidden, 'hidden', c_name='expand_to_mhc_fwd')
    h = int(hidden.shape[-1]) if len(hidden.shape) else 0
    if out is None:
        out = c.empty_as(hidden, tuple(hidden.shape[:-1]) + (int(mhc_mult), h), 'hidden')
    c.run(c.t(_flat(c, hidden, (h,), 'hidden'), 'hidden'), c.w(_flat(c, out, (int(mhc_mult), h), 'out'), 'out'))
    return out


def expand_to_mhc_bwd(out_grad):
    """[..., n, H] -> [..., H] bf16: the streams' gradients summed in fp32 in order of the streams."""
    c = Call('mhc.expand_to_mhc_bwd', out_grad, 'out_grad')
    n, h = _streams(c, out_grad, 'out_grad')
    grad = c.empty_as(out_grad, tuple(out_grad.shape[:-2]) + (h,), 'out_grad')
    c.run(c.t(_flat(c, out_grad, (n, h), 'out_grad'), 'out_grad'), c.t(c.reshape(grad, (-1, h)), 'hidden_grad'))
    return grad


def mhc_pre_apply_mix(x, mix, out=None):
    """x [..., n, H] bf16, mix [..., n, 1] fp32 -> [..., H] bf16: sum over m of mix[m] x[m] (fma, in order)."""
    c = Call('mhc.mhc_pre_apply_mix', x, 'x', c_name='mhc_pre_apply_mix_fwd')
    n, h = _streams(c, x, 'x')
    _same_tokens(c, x, 'x', 2, mix, 'mix', 2)
    if out is None:
        out = c.empty_as(x, tuple(x.shape[:-2]) + (h,), 'x')
    c.run(c.t(_flat(c, x, (n, h), 'x'), 'x'), c.t(_flat(c, mix, (n, 1), 'mix', (n,)), 'mix'),
          c.w(_flat(c, out, (h,), 'out'), 'out'))
    return out


def mhc_pre_apply_mix_bwd(o_grad, x, mix, x_grad=None):
    """Returns (x_grad, mix_grad). With x_grad given (the residual-gradient buffer mhc_post_bwd started), the
    streams' gradient is added into it in place and it is returned; else a fresh one."""
    c = Call('mhc.mhc_pre_apply_mix_bwd', o_grad, 'o_grad')
    n, h = _streams(c, x, 'x')
    accumulate = x_grad is not None
    if x_grad is None:
        x_grad = c.empty_as(x, tuple(x.shape), 'x')
    mix_grad = c.empty(tuple(mix.shape), _lib.F32)
    c.run(c.t(_flat(c, o_grad, (h,), 'o_grad'), 'o_grad'), c.t(_flat(c, x, (n, h), 'x'), 'x'),
          c.t(_flat(c, mix, (n, 1), 'mix', (n,)), 'mix'), int(accumulate),
          c.w(_flat(c, x_grad, (n, h), 'x_grad'), 'x_grad'), c.t(c.reshape(mix_grad, (-1, n)), 'mix_grad'))
    return x_grad, mix_grad


def mhc_post(x, residual, post_layer_mix, comb_res_mix, out=None):
    """x [..., H], residual [..., n, H] bf16, post [..., n, 1], comb [..., n, n] fp32 -> [..., n, H] bf16:
    out[o] = post[o] x + sum over i of comb[i, o] residual[i] (fma, in order of i)."""
    c = Call('mhc.mhc_post', x, 'x', c_name='mhc_post_fwd')
    n, h = _streams(c, residual, 'residual')
    _same_tokens(c, x, 'x', 1, residual, 'residual', 2)
    if out is None:
        out = c.empty_as(residual, tuple(residual.shape), 'residual')
    c.run(c.t(_flat(c, x, (h,), 'x'), 'x'), c.t(_flat(c, residual, (n, h), 'residual'), 'residual'),
          c.t(_flat(c, post_layer_mix, (n, 1), 'post_layer_mix', (n,)), 'post_layer_mix'),
          c.t(_flat(c, comb_res_mix, (n, n), 'comb_res_mix'), 'comb_res_mix'),
          c.w(_flat(c, out, (n, h), 'out'), 'out'))
    return out


mhc_post_fwd = mhc_post


def mhc_post_bwd(x, residual, post_layer_mix, comb_res_mix, d_o):
    """Returns (d_x, d_residual, d_post_layer_mix, d_comb_res_mix), shaped as their tensors."""
    c = Call('mhc.mhc_post_bwd', d_o, 'd_o')
    n, h = _streams(c, residual, 'residual')
    d_x = c.empty_as(x, tuple(x.shape), 'x')
    d_res = c.empty_as(residual, tuple(residual.shape), 'residual')
    d_post = c.empty(tuple(post_layer_mix.shape), _lib.F32)
    d_comb = c.empty(tuple(comb_res_mix.shape), _lib.F32)
    c.run(c.t(_flat(c, d_o, (n, h), 'd_o'), 'd_o'), c.t(_flat(c, x, (h,), 'x'), 'x'),
          c.t(_flat(c, residual, (n, h), 'residual'), 'residual'),
          c.t(_flat(c, post_layer_mix, (n, 1), 'post_layer_mix', (n,)), 'post_layer_mix'),
          c.t(_flat(c, comb_res_mix, (n, n), 'comb_res_mix'), 'comb_res_mix'),
          c.t(c.reshape(d_x, (-1, h)), 'd_x'), c.t(c.reshape(d_res, (-1, n, h)), 'd_residual'),
          c.t(c.reshape(d_post, (-1, n)), 'd_post_layer_mix'), c.t(c.reshape(d_comb, (-1, n, n)), 'd_comb_res_mix'))
    return d_x, d_res, d_post, d_comb


def sinkhorn_normalize(x, repeat=10, eps=1e-6):
    """x [..., n, n] fp32 -> the same shape: row softmax, + eps, then repeat column and repeat - 1 row
    normalisations (eps in the denominators)."""
    c = Call('mhc.sinkhorn_normalize', x, 'x', c_name='sinkhorn_normalize_fwd')
    n = _streams(c, x, 'x')[0]
    out = c.empty(tuple(x.shape), _lib.F32)
    c.run(c.t(_flat(c, x, (n, n), 'x'), 'x'), int(repeat), float(eps), c.t(c.reshape(out, (-1, n, n)), 'out'))
    return out


def sinkhorn_normalize_bwd(grad_output, x, repeat=10, eps=1e-6):
    """The gradient of sinkhorn_normalize at x (recomputed), shaped as x."""
    c = Call('mhc.sinkhorn_normalize_bwd', grad_output, 'grad_output')
    n = _streams(c, x, 'x')[0]
    grad = c.empty(tuple(x.shape), _lib.F32)
    c.run(c.t(_flat(c, grad_output, (n, n), 'grad_output'), 'grad_output'), c.t(_flat(c, x, (n, n), 'x'), 'x'),
          int(repeat), float(eps), c.t(c.reshape(grad, (-1, n, n)), 'grad_x'))
    return grad


def _logits(c, obj, arg, columns):
    """[..., columns] fp32 logits as (T, columns); rows may be strided (mhc_head's column slice), the columns
    must be adjacent (tk says so otherwise)."""
    c.check_same(obj, arg)
    if len(obj.shape) < 1 or int(obj.shape[-1]) != columns:
        raise c.invalid(f'{arg} has shape {tuple(obj.shape)}; expected [..., {columns}]')
    return c.reshape(obj, (-1, columns))


def mhc_pre_split_mixes(input_mixes, mhc_scale, mhc_base, mhc_mult, mhc_post_mult_value, mhc_pre_eps):
    """input_mixes [..., 2n + n^2] fp32 -> (pre [..., n, 1], post [..., n, 1], comb [..., n, n]) fp32 with
    z = u scale[group] + base: pre = sigmoid(z) + eps, post = p sigmoid(z), comb = z."""
    c = Call('mhc.mhc_pre_split_mixes', input_mixes, 'input_mixes', c_name='mhc_pre_split_mixes_fwd')
    n = int(mhc_mult)
    lead = tuple(input_mixes.shape[:-1])
    pre, post, comb = (c.empty(lead + (n, 1), _lib.F32), c.empty(lead + (n, 1), _lib.F32),
                       c.empty(lead + (n, n), _lib.F32))
    c.run(c.t(_logits(c, input_mixes, 'input_mixes', 2 * n + n * n), 'input_mixes'), c.t(mhc_scale, 'mhc_scale'),
          c.t(mhc_base, 'mhc_base'), float(mhc_post_mult_value), float(mhc_pre_eps),
          c.t(c.reshape(pre, (-1, n)), 'pre'), c.t(c.reshape(post, (-1, n)), 'post'),
          c.t(c.reshape(comb, (-1, n, n)), 'comb'))
    return pre, post, comb


def mhc_pre_split_mixes_bwd(pre_layer_mix_grad, post_layer_mix_grad, comb_res_mix_grad, input_mixes,
                            post_layer_mix, mhc_scale, mhc_base, mhc_post_mult_value):
    """Returns (input_mixes_grad, mhc_scale_grad, mhc_base_grad): the logits' gradient shaped as input_mixes,
    and the parameters' (sums over the tokens in a fixed order)."""
    c = Call('mhc.mhc_pre_split_mixes_bwd', pre_layer_mix_grad, 'pre_layer_mix_grad')
    n = int(comb_res_mix_grad.shape[-1]) if len(comb_res_mix_grad.shape) else 0
    m = 2 * n + n * n
    grad = c.empty(tuple(input_mixes.shape), _lib.F32)
    grad_scale, grad_base = c.empty(tuple(mhc_scale.shape), _lib.F32), c.empty(tuple(mhc_base.shape), _lib.F32)
    c.run(c.t(_flat(c, pre_layer_mix_grad, (n, 1), 'pre_layer_mix_grad', (n,)), 'pre_layer_mix_grad'),
          c.t(_flat(c, post_layer_mix_grad, (n, 1), 'post_layer_mix_grad', (n,)), 'post_layer_mix_grad'),
          c.t(_flat(c, comb_res_mix_grad, (n, n), 'comb_res_mix_grad'), 'comb_res_mix_grad'),
          c.t(_logits(c, input_mixes, 'input_mixes', m), 'input_mixes'),
          c.t(_flat(c, post_layer_mix, (n, 1), 'post_layer_mix', (n,)), 'post_layer_mix'),
          c.t(mhc_scale, 'mhc_scale'), c.t(mhc_base, 'mhc_base'), float(mhc_post_mult_value),
          c.t(c.reshape(grad, (-1, m)), 'input_mixes_grad'), c.t(grad_scale, 'mhc_scale_grad'),
          c.t(grad_base, 'mhc_base_grad'))
    return grad, grad_scale, grad_base


def mhc_head_compute_mix(input_mix, mhc_scale, mhc_base, mhc_pre_eps):
    """input_mix [..., n] fp32 (a column slice of wider logits is fine) -> [..., n] fp32:
    sigmoid(u scale + base) + eps."""
    c = Call('mhc.mhc_head_compute_mix', input_mix, 'input_mix', c_name='mhc_head_compute_mix_fwd')
    n = int(input_mix.shape[-1]) if len(input_mix.shape) else 0
    out = c.empty(tuple(input_mix.shape), _lib.F32)
    c.run(c.t(_logits(c, input_mix, 'input_mix', n), 'input_mix'), c.t(mhc_scale, 'mhc_scale'),
          c.t(mhc_base, 'mhc_base'), float(mhc_pre_eps), c.t(c.reshape(out, (-1, n)), 'out'))
    return out


def mhc_head_compute_mix_bwd(output_mix_grad, input_mix, mhc_scale, mhc_base):
    """Returns (input_mix_grad, mhc_scale_grad, mhc_base_grad), the first shaped as input_mix (contiguous)."""
    c = Call('mhc.mhc_head_compute_mix_bwd', output_mix_grad, 'output_mix_grad')
    n = int(input_mix.shape[-1]) if len(input_mix.shape) else 0
    grad = c.empty(tuple(input_mix.shape), _lib.F32)
    grad_scale, grad_base = c.empty(tuple(mhc_scale.shape), _lib.F32), c.empty(tuple(mhc_base.shape), _lib.F32)
    c.run(c.t(_flat(c, output_mix_grad, (n,), 'output_mix_grad'), 'output_mix_grad'),
          c.t(_logits(c, input_mix, 'input_mix', n), 'input_mix'), c.t(mhc_scale, 'mhc_scale'),
          c.t(mhc_base, 'mhc_base'), c.t(c.reshape(grad, (-1, n)), 'input_mix_grad'),
          c.t(grad_scale, 'mhc_scale_grad'), c.t(grad_base, 'mhc_base_grad'))
    return grad, grad_scale, grad_base


def mhc_pre_norm_fn_fwd(residual, mhc_fn, mhc_norm_weight=None, mhc_norm_eps=1e-6):
    """residual [..., n, H] bf16, mhc_fn [n3, n H] fp32 (norm weight [n H] folded in when given) ->
    (mix [..., n3], mul [..., n3], ss [...]) fp32: mix = (x @ tf32(fn w).T) rsqrt(sum x^2 / (n H) + eps) on
    tensor cores; mul and ss are what mhc_pre_norm_fn_bwd takes."""
    c = Call('mhc.mhc_pre_norm_fn_fwd', residual, 'residual')
    n, h = _streams(c, residual, 'residual')
    n3 = int(mhc_fn.shape[0]) if len(mhc_fn.shape) == 2 else 0
    lead = tuple(residual.shape[:-2])
    mix, mul, ss = c.empty(lead + (n3,), _lib.F32), c.empty(lead + (n3,), _lib.F32), c.empty(lead, _lib.F32)
    c.run(c.t(_flat(c, residual, (n, h), 'residual'), 'residual'), c.t(mhc_fn, 'mhc_fn'),
          c.t(mhc_norm_weight, 'mhc_norm_weight'), float(mhc_norm_eps), c.t(c.reshape(mix, (-1, n3)), 'mix'),
          c.t(c.reshape(mul, (-1, n3)), 'mul'), c.t(c.reshape(ss, (-1,)), 'ss'))
    return mix, mul, ss


def mhc_pre_norm_fn(residual, mhc_fn, mhc_norm_weight=None, mhc_norm_eps=1e-6):
    """The mix logits [..., n3] of mhc_pre_norm_fn_fwd alone."""
    return mhc_pre_norm_fn_fwd(residual, mhc_fn, mhc_norm_weight, mhc_norm_eps)[0]


def mhc_pre_norm_fn_bwd(mix_grad, residual, mhc_fn, mhc_norm_weight, mul, ss, mhc_norm_eps=1e-6,
                        residual_grad=None):
    """Returns (residual_grad, fn_grad, norm_weight_grad or None). With residual_grad given (the residual-gradient
    buffer of spec 2.1), the residual's gradient is added into it in place; else a fresh one. fn_grad and
    norm_weight_grad are written (sums over the tokens in a fixed order)."""
    c = Call('mhc.mhc_pre_norm_fn_bwd', mix_grad, 'mix_grad')
    n, h = _streams(c, residual, 'residual')
    n3 = int(mhc_fn.shape[0]) if len(mhc_fn.shape) == 2 else 0
    accumulate = residual_grad is not None
    if residual_grad is None:
        residual_grad = c.empty_as(residual, tuple(residual.shape), 'residual')
    fn_grad = c.empty(tuple(mhc_fn.shape), _lib.F32)
    w_grad = None if mhc_norm_weight is None else c.empty(tuple(mhc_norm_weight.shape), _lib.F32)
    c.run(c.t(_flat(c, mix_grad, (n3,), 'mix_grad'), 'mix_grad'),
          c.t(_flat(c, residual, (n, h), 'residual'), 'residual'),
          c.t(mhc_fn, 'mhc_fn'), c.t(mhc_norm_weight, 'mhc_norm_weight'), c.t(_flat(c, mul, (n3,), 'mul'), 'mul'),
          c.t(c.reshape(ss, (-1,)), 'ss'), float(mhc_norm_eps), int(accumulate),
          c.w(_flat(c, residual_grad, (n, h), 'residual_grad'), 'residual_grad'), c.t(fn_grad, 'fn_grad'),
          c.t(w_grad, 'norm_weight_grad'))
    return residual_grad, fn_grad, w_grad


def mhc_pre_big_fuse(residual, fn, mhc_scale, mhc_base, rms_eps, mhc_pre_eps, mhc_sinkhorn_eps, mhc_post_mult_value,
                     sinkhorn_repeat, n_splits=16):
    """Inference: residual [..., n, H] bf16 -> (post_mix [..., n, 1], comb_mix [..., n, n] Sinkhorn-normalised,
    layer_input [..., H] bf16), bit-identical to mhc_pre_norm_fn (no norm weight: fold one into fn) ->
    mhc_pre_split_mixes -> sinkhorn_normalize -> mhc_pre_apply_mix. n_splits is accepted and ignored (the
    reference forces 1 too)."""
    del n_splits
    c = Call('mhc.mhc_pre_big_fuse', residual, 'residual')
    n, h = _streams(c, residual, 'residual')
    lead = tuple(residual.shape[:-2])
    post, comb = c.empty(lead + (n, 1), _lib.F32), c.empty(lead + (n, n), _lib.F32)
    layer_input = c.empty_as(residual, lead + (h,), 'residual')
    c.run(c.t(_flat(c, residual, (n, h), 'residual'), 'residual'), c.t(fn, 'fn'), c.t(mhc_scale, 'mhc_scale'),
          c.t(mhc_base, 'mhc_base'), float(rms_eps), float(mhc_pre_eps), float(mhc_sinkhorn_eps),
          float(mhc_post_mult_value), int(sinkhorn_repeat), c.t(c.reshape(post, (-1, n)), 'post_mix'),
          c.t(c.reshape(comb, (-1, n, n)), 'comb_mix'), c.t(c.reshape(layer_input, (-1, h)), 'layer_input'))
    return post, comb, layer_input


def _tensor_array(c, tensors, arg, tail, flat_tail=None, written=False):
    """A C array of the list's tk_tensors (each element's errors name it, as 'pre_mix_list[2]')."""
    refs = []
    for i, obj in enumerate(tensors):
        name = f'{arg}[{i}]'
        flat = _flat(c, obj, tail, name, flat_tail)
        refs.append((c.w if written else c.t)(flat, name))
    array = (_lib.TkTensor * max(1, len(refs)))(*[r._obj for r in refs])
    c._keep.append(array)
    return array


def mhc_multilayer_recompute(initial_residual, pre_mix_list, layer_output_list, post_mix_list, comb_mix_list,
                             layer_input_list, residual_list):
    """Rebuilds a segment's layer inputs and residuals into the preallocated layer_input_list ([..., H] bf16, L of
    them) and residual_list ([..., n, H] bf16, Lp = L or L - 1) from initial_residual [..., n, H], pre_mix_list
    [..., n, 1], layer_output_list [..., H], post_mix_list [..., n, 1] and comb_mix_list [..., n, n]:
    bit-identical to mhc_pre_apply_mix and mhc_post layer by layer. Returns None, as the reference."""
    c = Call('mhc.mhc_multilayer_recompute', initial_residual, 'initial_residual')
    n, h = _streams(c, initial_residual, 'initial_residual')
    layers, posts = len(pre_mix_list), len(layer_output_list)
    for name, lst, count in (('layer_input_list', layer_input_list, layers), ('post_mix_list', post_mix_list, posts),
                             ('comb_mix_list', comb_mix_list, posts), ('residual_list', residual_list, posts)):
        if len(lst) != count:
            raise c.invalid(f'{name} has {len(lst)} tensors; expected {count}')
    c.run(c.t(_flat(c, initial_residual, (n, h), 'initial_residual'), 'initial_residual'), layers,
          _tensor_array(c, pre_mix_list, 'pre_mix_list', (n, 1), (n,)), posts,
          _tensor_array(c, layer_output_list, 'layer_output_list', (h,)),
          _tensor_array(c, post_mix_list, 'post_mix_list', (n, 1), (n,)),
          _tensor_array(c, comb_mix_list, 'comb_mix_list', (n, n)),
          _tensor_array(c, layer_input_list, 'layer_input_list', (h,), written=True),
          _tensor_array(c, residual_list, 'residual_list', (n, h), written=True))


__all__ = ['expand_to_mhc', 'expand_to_mhc_bwd', 'mhc_pre_apply_mix', 'mhc_pre_apply_mix_bwd', 'mhc_post',
           'mhc_post_fwd', 'mhc_post_bwd', 'sinkhorn_normalize', 'sinkhorn_normalize_bwd', 'mhc_pre_split_mixes',
           'mhc_pre_split_mixes_bwd', 'mhc_head_compute_mix', 'mhc_head_compute_mix_bwd', 'mhc_pre_norm_fn',
           'mhc_pre_norm_fn_fwd', 'mhc_pre_norm_fn_bwd', 'mhc_pre_big_fuse', 'mhc_multilayer_recompute']
