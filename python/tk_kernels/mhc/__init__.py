"""mHC: not shipped by tk's C API yet; any name looked up here says so."""

_MISSING = ('expand_to_mhc', 'mhc_pre_norm_fn', 'mhc_pre_split_mixes', 'sinkhorn_normalize', 'mhc_pre_apply_mix',
            'mhc_head_compute_mix', 'mhc_post', 'mhc_pre_big_fuse', 'mhc_multilayer_recompute')


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise NotImplementedError(f'tk_kernels.mhc.{name}: the mHC operators ({", ".join(_MISSING)}) are not in '
                              'tk\'s C API yet')
