/*===- tk.h - the tk C API ---------------------------------------------------===
 *
 * Every operator of DeepSeek's TileKernels, compiled from the tk DSL, behind a
 * stable C interface. Callers own all memory: they pass tensor descriptors
 * (pointer, dtype, shape, strides in elements, device) and a CUDA stream.
 *
 * Every function returns a tk_status. On failure, tk_last_error() returns a
 * message for the calling thread that says what was wrong. An operator that
 * returns an error has written none of its outputs, with one exception:
 * TK_ERROR_INVALID_DATA, a fault in the tensors' values that only the kernel
 * can see (it is found while the outputs are written, which then hold
 * unspecified values).
 *===-------------------------------------------------------------------------===*/
#ifndef TK_TK_H
#define TK_TK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_status {
  TK_SUCCESS = 0,
  TK_ERROR_INVALID_ARGUMENT = 1, /* shapes, dtypes, strides, pointers, options */
  TK_ERROR_UNSUPPORTED = 2,      /* valid per the spec but not available in this build */
  TK_ERROR_NO_DRIVER = 3,        /* libcuda.so.1 could not be loaded */
  TK_ERROR_NO_DEVICE = 4,        /* no CUDA device, or none tk can compile for */
  TK_ERROR_COMPILE = 5,          /* the kernel failed to compile or load */
  TK_ERROR_LAUNCH = 6,           /* the CUDA driver refused the launch */
  TK_ERROR_INTERNAL = 7,
  TK_ERROR_OUT_OF_MEMORY = 8,    /* host or device memory ran out (e.g. sizes whose scratch cannot be allocated) */
  TK_ERROR_INVALID_DATA = 9      /* the values (not the descriptors) break a precondition the kernel checks;
                                    the outputs hold unspecified values */
} tk_status;

/* Values match tk::dsl::DType. */
typedef enum tk_dtype {
  TK_BF16 = 0,
  TK_F16 = 1,
  TK_F32 = 2,
  TK_F8_E4M3 = 3, /* float8_e4m3fn */
  TK_I8 = 4,      /* also packed FP4 (e2m1), two per byte */
  TK_U8 = 5,
  TK_I32 = 6,
  TK_I64 = 7,
  TK_I16 = 8
} tk_dtype;

typedef enum tk_device_type { TK_DEVICE_CUDA = 0, TK_DEVICE_CPU = 1 } tk_device_type;

#define TK_MAX_DIMS 8

/* Inputs are `const tk_tensor *`, outputs `tk_tensor *` (an in/out parameter
 * is read and written in place). An output may not share memory with another
 * tensor of the same call: such a call returns TK_ERROR_INVALID_ARGUMENT,
 * naming both tensors, before any kernel runs (after the call's other
 * checks; a call with nothing to do refuses it too). No overlap is missed: tensors whose byte ranges meet pass only
 * when their strides show that they interleave without sharing a byte
 * (columns of one buffer); other layouts whose ranges meet are refused, and
 * so is an output whose own elements share memory (a stride of 0, rows
 * closer than their length). */
typedef struct tk_tensor {
  void *data;                    /* device (or host) pointer to element [0, 0, ...] */
  tk_dtype dtype;
  int32_t ndim;
  int64_t shape[TK_MAX_DIMS];
  int64_t strides[TK_MAX_DIMS];  /* in elements */
  tk_device_type device;
} tk_tensor;

typedef struct tk_context_s *tk_context;
typedef void *tk_stream;          /* a CUstream; NULL is the default stream */

/* Output formats of the quantizing operators. */
typedef enum tk_format { TK_FORMAT_E4M3 = 0, TK_FORMAT_E2M1 = 1, TK_FORMAT_E5M6 = 2 } tk_format;

/* Scale-factor options (bit flags), named after the reference's arguments. */
enum {
  TK_SF_COL_MAJOR = 1u << 0,   /* use_tma_aligned_col_major_sf: strides (1, align(M, 4)) */
  TK_ROUND_SF = 1u << 1,       /* round_sf: scale factors rounded up to powers of two */
  TK_PACKED_UE8M0 = 1u << 2    /* use_packed_ue8m0: needs TK_SF_COL_MAJOR and TK_ROUND_SF */
};

/* The message of the calling thread's last failure ("" if none). */
const char *tk_last_error(void);
const char *tk_status_string(tk_status status);
/* "0.1.0 (commit abcdef)". */
const char *tk_version(void);

/* A context owns the JIT cache, and on the device the memory blocks of the
 * operators' temporaries and a page-locked read-back buffer (both allocated
 * on first use, kept for reuse, released by tk_context_destroy). Creating one needs no GPU; the
 * device is bound at the first launch (the current CUDA context, else device
 * 0's primary context). */
tk_status tk_context_create(tk_context *ctx);
tk_status tk_context_destroy(tk_context ctx);

/* The SM count persistent grids size themselves for (the spec's
 * set_num_sms; quant.md 4.20: the SwiGLU clamp counting runs 4 blocks per
 * SM). 0 restores the device's count; otherwise 1 <= num_sms <= the device's
 * SMs (checked at the next launch when no device is bound yet). The CPU path
 * ignores it. tk_get_num_sms gives the count in effect (0 when neither an
 * override nor a device is known). */
tk_status tk_set_num_sms(tk_context ctx, int32_t num_sms);
tk_status tk_get_num_sms(tk_context ctx, int32_t *num_sms);

/* Checks of data-dependent inputs (bit flags). Unchecked (the default),
 * every operator keeps its documented behaviour on out-of-range data and
 * never reads or writes outside its tensors. With a flag set, the operators
 * it names first scan those inputs on their device, wait for the stream, and
 * fail with TK_ERROR_INVALID_ARGUMENT naming the first bad element (index
 * and value), writing no output:
 * TK_CHECK_INDICES: expert or group ids in [-1, E) (topk_idx of aux_fi and
 *   get_fused_mapping, group_idx of group_count, group_indices of
 *   inplace_unique_group_indices, indices of mask_indices_by_tp in
 *   [-1, n)); token_topk_to_pos in [-1, M) (expand_to_fused[_with_sf],
 *   reduce_fused); top2_sum_gate's logical_count in [1, X + 1] and
 *   the stored ids of fixed rows in [0, E); and
 *   get_fused_mapping's M at least the positions it needs (read back as
 *   with num_positions; the outputs are then incomplete); engram_hash's
 *   vocab_sizes positive.
 * TK_CHECK_FINITE: scores of topk_gate and topk_sum_and_topk_group_idx and
 *   logits of top2_sum_gate finite (moe.md Q6).
 * Each check is one extra kernel and a wait: a debugging aid, not for the
 * hot path. */
enum { TK_CHECK_INDICES = 1u << 0, TK_CHECK_FINITE = 1u << 1 };
tk_status tk_set_input_checks(tk_context ctx, uint32_t checks);
tk_status tk_get_input_checks(tk_context ctx, uint32_t *checks);

/* per_token_cast (spec: quant.md 4.1). x is (M, K) bf16 or fp32 with unit
 * column stride and any row stride. out is (M, K) e4m3, contiguous, or for
 * TK_FORMAT_E2M1 (M, K / 2) i8 with two codes per byte (element 2i in the low
 * nibble; K even), or for TK_FORMAT_E5M6 (M, 3 K / 2) u8 with 8 codes per 3
 * little-endian words (num_per_channels == K, K % 8 == 0; quant.md 4.5). out_sf is
 * (M, ceil(K / num_per_channels)) fp32, row-major, or with TK_SF_COL_MAJOR
 * strides (1, align(M, 4)). num_per_channels is 16, 32, 64, 128, or K when
 * K % 64 == 0. x_sf and x_block_size describe a quantized input; pass NULL for
 * a plain one. A quantized x is e4m3 (M, K) with x_sf fp32
 * (ceil(M / b_in), ceil(K / g_in)) in any strides, or packed UE8M0 i32 words
 * (column-major), x_block_size = {b_in, g_in} (quant.md 4.2; num_per_channels
 * must then be below K). With TK_PACKED_UE8M0 (needs TK_SF_COL_MAJOR and
 * TK_ROUND_SF) out_sf is i32 (M, ceil(Kb / 4)), strides (1, align(M, 4)),
 * group k's exponent byte in byte k % 4 of word k / 4. */
tk_status tk_per_token_cast(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                            const int32_t *x_block_size, tk_format fmt, int32_t num_per_channels,
                            uint32_t flags, tk_tensor *out, tk_tensor *out_sf, tk_stream stream);

/* per_token_cast_with_sf_only (quant.md 4.3): only the scale factors of
 * tk_per_token_cast (same arguments without out). Plain input only;
 * num_per_channels must not be K. */
tk_status tk_per_token_cast_with_sf_only(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                         const int32_t *x_block_size, tk_format fmt, int32_t num_per_channels,
                                         uint32_t flags, tk_tensor *out_sf, tk_stream stream);

/* per_token_cast_with_precomputed_sf (quant.md 4.4): out = e4m3(x * (1 / sf))
 * with caller-given scale factors sf, fp32 (M, ceil(K / g)), row-major with a
 * unit column stride. TK_ROUND_SF is ignored; TK_SF_COL_MAJOR and
 * TK_PACKED_UE8M0 are rejected; num_per_channels must not be K. */
tk_status tk_per_token_cast_with_precomputed_sf(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                int32_t num_per_channels, const tk_tensor *sf, uint32_t flags,
                                                tk_tensor *out, tk_stream stream);

/* per_block_cast (quant.md 4.6): one scale per b x g block, block_size =
 * {b, g} with b, g in {32, 128}. x (M, K) bf16 or fp32, contiguous,
 * K % 64 == 0. out (M, K) e4m3 contiguous. out_sf (ceil(M / b), ceil(K / g))
 * fp32, row-major, or with TK_SF_COL_MAJOR strides (1, align(ceil(M / b), 4)).
 * TK_ROUND_SF as in tk_per_token_cast. TK_FORMAT_E2M1 writes out as i8
 * (M, K / 2), two codes per byte. With TK_PACKED_UE8M0 (needs TK_SF_COL_MAJOR
 * and TK_ROUND_SF) out_sf is i32 (ceil(M / b), ceil(ceil(K / g) / 4)) with
 * strides (1, align(ceil(M / b), 4)): block q's exponent byte in byte q % 4. */
tk_status tk_per_block_cast(tk_context ctx, const tk_tensor *x, tk_format fmt, const int32_t *block_size,
                            uint32_t flags, tk_tensor *out, tk_tensor *out_sf, tk_stream stream);

/* per_block_cast_with_sf_only (quant.md 4.7): only the scale factors of
 * tk_per_block_cast. */
tk_status tk_per_block_cast_with_sf_only(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                         const int32_t *block_size, uint32_t flags, tk_tensor *out_sf,
                                         tk_stream stream);

/* per_block_cast_with_precomputed_sf (quant.md 4.8): out = e4m3(x * (1 / sf))
 * with caller-given block scale factors sf, fp32 (ceil(M / b), ceil(K / g)),
 * row-major. TK_ROUND_SF is ignored; TK_SF_COL_MAJOR and TK_PACKED_UE8M0 are
 * rejected. */
tk_status tk_per_block_cast_with_precomputed_sf(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                const int32_t *block_size, const tk_tensor *sf, uint32_t flags,
                                                tk_tensor *out, tk_stream stream);

/* per_block_cast_lossless (quant.md 4.9): re-blocks packed FP4 (e2m1) with
 * power-of-two scale factors into e4m3 with larger blocks, exactly:
 * dec(out) * sf_out == dec(x) * sf_in for every element. x is i8 (M, K / 2),
 * contiguous, two codes per byte (element 2i in the low nibble), K % 32 == 0;
 * x_sf holds the input block scales for x_block_size {b_in, g_in}: fp32
 * (ceil(M / b_in), K / g_in) in any non-negative strides (powers of two, or
 * 0 for an all-zero block), or packed UE8M0 words as tk_cast_back accepts.
 * out_block_size {b_out, g_out}: multiples of the input block; all block
 * sizes powers of two. fmt must be TK_FORMAT_E4M3. out is e4m3 (M, K)
 * contiguous; out_sf (ceil(M / b_out), ceil(K / g_out)) in the flags' layout
 * as tk_per_block_cast writes it (TK_ROUND_SF is accepted and ignored: output
 * scales are always powers of two). An input scale that is not a power of two
 * or 0 (NaN, an infinity, a negative value, a mantissa), or one more than 2^11
 * below the largest of its output block, cannot be represented and returns
 * TK_ERROR_INVALID_DATA (out and out_sf are then incomplete). To find out, the call waits for `stream` (the
 * kernel's per-tile flags come back through page-locked memory the context
 * keeps; concurrent calls on one context take turns for it).
 * Block heights that are not powers of two return TK_ERROR_UNSUPPORTED in
 * this version. */
tk_status tk_per_block_cast_lossless(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                     const int32_t *x_block_size, tk_format fmt, const int32_t *out_block_size,
                                     uint32_t flags, tk_tensor *out, tk_tensor *out_sf, tk_stream stream);

/* per_channel_cast (quant.md 4.13): one scale per column and 128 rows.
 * x (M, K) bf16 or fp32, contiguous, M % 128 == 0, K % 64 == 0;
 * num_per_tokens = 128; out (M, K) e4m3 contiguous; out_sf (M / 128, K) fp32
 * contiguous. flags: TK_ROUND_SF only. */
tk_status tk_per_channel_cast(tk_context ctx, const tk_tensor *x, tk_format fmt, int32_t num_per_tokens,
                              uint32_t flags, tk_tensor *out, tk_tensor *out_sf, tk_stream stream);

/* per_channel_cast_fused (quant.md 4.14): with x_sf NULL as
 * tk_per_channel_cast (num_per_channels must be 0); with x_sf, x is e4m3
 * (N, K) contiguous, K % 128 == 0, and x_sf fp32 (N, K / 128) contiguous holds
 * dequantization multipliers (num_per_channels = 128): the values are
 * fl(decode(x) * x_sf[i, j / 128]) before the per-channel cast. With
 * pos_to_token (int32 (N_out) contiguous, N_out % 16 == 0) output row p is x's
 * row pos_to_token[p] (zeros for -1 or an index >= N); out is (N_out, K),
 * out_sf (ceil(N_out / 128), K), and a partial last block of 128 rows counts
 * only its rows. Without it N_out = N, and N % 128 == 0. */
tk_status tk_per_channel_cast_fused(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf, tk_format fmt,
                                    int32_t num_per_tokens, uint32_t flags, int32_t num_per_channels,
                                    const tk_tensor *pos_to_token, tk_tensor *out, tk_tensor *out_sf,
                                    tk_stream stream);

/* per_channel_cast_and_transpose (quant.md 4.15): as tk_per_channel_cast with
 * num_per_tokens b in {32, 128} and bf16 x, writing out (K, M) transposed
 * (out[j, m] = e4m3 of x[m, j]); out_sf (M / b, K) is not transposed. */
tk_status tk_per_channel_cast_and_transpose(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                            int32_t num_per_tokens, uint32_t flags, tk_tensor *out,
                                            tk_tensor *out_sf, tk_stream stream);

/* swiglu_forward_and_per_token_cast (quant.md 4.16): x bf16 or fp32 (N, 2H)
 * contiguous, H % 128 == 0, gate half l = x[:, :H], linear half r = x[:, H:].
 * Per row p: with a clamp c (NULL: none; finite, > 0) l = min(l, c),
 * r = max(min(r, c), -c); y = (l / (1 + expf(-l))) * r (CUDA's device expf,
 * bit for bit), times the routing weight topk_weights.flat[pos_to_token_topk[p]]
 * (0 for a negative position) when pos_to_token_topk (int32 (N)) and
 * topk_weights (fp32 (T, k) contiguous) are given; then per-token e4m3 with
 * groups of num_per_channels in {128, H}: out e4m3 (N, H) contiguous, out_sf
 * (N, H / g) in the layout of the flags, as tk_per_token_cast
 * (TK_SF_COL_MAJOR only with g = 128). clamped_count (int64 (3), needs the
 * clamp) accumulates the counts of l > c, r > c and r < -c before clamping,
 * over the rows whose pos_to_expert (int32 (N), optional) is not negative.
 * sf_clamp_min (NULL: 1e-4) replaces CLAMP of the scale rule; it must be > 0,
 * and at least 448 * 2^-126 with TK_ROUND_SF. Rows with a negative
 * pos_to_expert hold unspecified values afterwards (they are written). */
tk_status tk_swiglu_forward_and_per_token_cast(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                               int32_t num_per_channels, const tk_tensor *pos_to_token_topk,
                                               const tk_tensor *topk_weights, const tk_tensor *pos_to_expert,
                                               uint32_t flags, const float *swiglu_clamp_value,
                                               tk_tensor *clamped_count, const float *sf_clamp_min,
                                               tk_tensor *out, tk_tensor *out_sf, tk_stream stream);

/* swiglu_backward_and_per_token_cast (quant.md 4.18): x e4m3 (N, 2H) (or 3-D,
 * flattened to rows) contiguous with x_sf fp32 (N, 2H / g) contiguous, the
 * per-token dequantization scales of the forward input, g = num_per_channels
 * in {32, 128}, H % g == 0; grad_out bf16 viewable as (N, H); weight fp32
 * (T, k) contiguous; pos_to_token_topk int32 (N); token_topk_to_pos int32
 * (T, k), its inverse. flags: TK_ROUND_SF only; clamp as in
 * tk_swiglu_forward_and_per_token_cast. Writes out bf16 (N, H) = act * w,
 * x_grad bf16 (N, 2H), x_grad_fp8 e4m3 (N, 2H) with x_grad_sf fp32
 * (N, 2H / g) (per-token cast of the fp32 gradient), and weight_grad fp32
 * (T, k): slot s gets the sum of grad_out * act over row token_topk_to_pos[s]
 * (the maps are each other's inverse; summed in a fixed order, so the result
 * is deterministic), 0 where token_topk_to_pos is -1 (every slot when N = 0).
 * Two kernel launches on `stream` and a temporary of N x (H / chunk) floats
 * taken in the stream's order from memory the context keeps (returned when
 * the context is destroyed); the call does not wait. */
tk_status tk_swiglu_backward_and_per_token_cast(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                                const tk_tensor *grad_out, const tk_tensor *weight,
                                                const tk_tensor *pos_to_token_topk,
                                                const tk_tensor *token_topk_to_pos, int32_t num_per_channels,
                                                uint32_t flags, const float *swiglu_clamp_value, tk_tensor *out,
                                                tk_tensor *x_grad_fp8, tk_tensor *x_grad_sf, tk_tensor *x_grad,
                                                tk_tensor *weight_grad, tk_stream stream);

/* swiglu_forward_and_per_channel_cast_and_transpose (quant.md 4.17): x bf16
 * (M, 2H) contiguous holds the gate half l = x[:, :H] and the linear half
 * r = x[:, H:]; M % 128 == 0, H % 64 == 0. With a clamp c (NULL: none; else
 * finite and > 0) l = min(l, c), r = max(min(r, c), -c). The activation
 * t = bf16(l / (1 + expf(-l)) * r) (CUDA's device expf, bit for bit) is cast
 * per channel with b = num_per_tokens in {32, 128} rows per scale: out e4m3
 * (H, M) (out[j, m]), or (M, H) when without_transpose != 0; out_sf fp32
 * (M / b, H) contiguous. flags: TK_ROUND_SF only. */
tk_status tk_swiglu_forward_and_per_channel_cast_and_transpose(tk_context ctx, const tk_tensor *x,
                                                               tk_format fmt, int32_t num_per_tokens,
                                                               uint32_t flags, int32_t without_transpose,
                                                               const float *swiglu_clamp_value, tk_tensor *out,
                                                               tk_tensor *out_sf, tk_stream stream);

/* cast_back (quant.md 4.10): out[i, j] = x[i, j] * S[i / b, j / g], rounded
 * to out's dtype (bf16, to nearest even, or f32). x is (M, K) e4m3,
 * contiguous, K % 64 == 0; x_sf is fp32 (ceil(M / b), ceil(K / g)) in any
 * non-negative strides (row-major, or column-major as tk_per_token_cast
 * writes it with TK_SF_COL_MAJOR); x_block_size = {b, g}, both positive.
 * out is (M, K), contiguous. x_sf may also be packed UE8M0 words: i32
 * (ceil(M / b), ceil(ceil(K / g) / 4)), strides (1, >= rows). x may be i8
 * (M, K / 2) of packed e2m1 codes (element 2i in the low nibble), or u8
 * (M, 3 K / 2) of packed e5m6 codes (quant.md 4.12: 8 codes per 3 little-endian
 * words; then K % 8 == 0 suffices). */
tk_status tk_cast_back(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf, const int32_t *x_block_size,
                       tk_tensor *out, tk_stream stream);

/* transpose (quant.md 4.19): out (C, R) = x (R, C) transposed, any 1, 2 or
 * 4-byte dtype, R and C multiples of 64, unit column stride, row stride a
 * multiple of 4 elements (and at least C). out is contiguous. */
tk_status tk_transpose(tk_context ctx, const tk_tensor *x, tk_tensor *out, tk_stream stream);

/* batched_transpose (quant.md 4.19): out (B, C, R) = x (B, R, C) with each
 * matrix transposed; as tk_transpose, with batch stride R x row stride. */
tk_status tk_batched_transpose(tk_context ctx, const tk_tensor *x, tk_tensor *out, tk_stream stream);

/* ---- MoE routing (moe.md) ---- */

/* topk_gate (moe.md 2.1): topk_idx[t, k] = the expert of rank k of token t's
 * scores: the greater score first, ties to the lower expert index, +0 and -0
 * equal, NaN below every number (so each row holds K distinct experts).
 * scores: (N, E) f32 contiguous, E <= 1024; topk_idx: (N, K) i64
 * contiguous with K = num_topk, 1 <= K <= E. N = 0 writes nothing. */
tk_status tk_topk_gate(tk_context ctx, const tk_tensor *scores, int32_t num_topk, tk_tensor *topk_idx,
                       tk_stream stream);

/* topk_sum_and_topk_group_idx (moe.md 2.2): group g of token t scores the sum
 * of its num_topk_sum (q = 1 or 2) largest expert scores (a repeated maximum
 * counts twice; one fp32 addition); group_idx[t, r] = the group of rank r, in
 * tk_topk_gate's order (ties to the lower group, NaN last). scores: (N, G,
 * epg) f32 contiguous, q <= epg, G epg <= 2048; group_idx: (N, Kg) i64
 * contiguous with Kg = num_topk_groups in [1, G]. */
tk_status tk_topk_sum_and_topk_group_idx(tk_context ctx, const tk_tensor *scores, int32_t num_topk_sum,
                                         int32_t num_topk_groups, tk_tensor *group_idx, tk_stream stream);

/* normalize_weight (moe.md 2.4): denominator[t] = (((1e-20 + w[t, 0]) +
 * w[t, 1]) + ...) + w[t, K - 1], one fp32 addition at a time in slot order,
 * and normalized_weights[t, k] = w[t, k] / denominator[t] (IEEE division).
 * topk_weights and normalized_weights: (N, K) f32 contiguous, 1 <= K <= 64;
 * denominator: (N) f32. N = 0 writes nothing. */
tk_status tk_normalize_weight(tk_context ctx, const tk_tensor *topk_weights, tk_tensor *denominator,
                              tk_tensor *normalized_weights, tk_stream stream);

/* mask_indices_by_tp (moe.md 2.5): with R = n / num_ep_ranks experts per EP
 * rank, each id v of indices becomes -1 when v < 0 or (v / R) % num_tp_ranks
 * != tp_rank, else the local id ((v / R) / num_tp_ranks) R + v % R.
 * indices and masked_indices: (N, K) i32 or i64 contiguous, one dtype;
 * n >= num_ep_ranks >= 1, 0 <= tp_rank < num_tp_ranks. The ranks are the
 * kernel's arguments at launch: one compiled kernel serves every rank. */
tk_status tk_mask_indices_by_tp(tk_context ctx, const tk_tensor *indices, int64_t n, int32_t num_ep_ranks,
                                int32_t tp_rank, int32_t num_tp_ranks, tk_tensor *masked_indices, tk_stream stream);

/* aux_fi (moe.md 2.6): fi[e] = (float)(c_e E) / (float)(N num_aux_topk),
 * c_e the number of entries of topk_idx equal to e (entries outside [0, E),
 * -1 among them, count nowhere; the products exact in 64-bit integers, one
 * rounding each, then an IEEE division). topk_idx: (N, K) i64 contiguous;
 * num_experts E in [1, 4096]; num_aux_topk >= 1; fi: (E) f32. N = 0 gives
 * zeros. Deterministic: the counts are integers (the reference adds float
 * partials atomically, moe.md Q8). Three kernels in stream order. */
tk_status tk_aux_fi(tk_context ctx, const tk_tensor *topk_idx, int32_t num_experts, int32_t num_aux_topk,
                    tk_tensor *fi, tk_stream stream);

/* group_count (moe.md 2.7): counts[g] = the number of entries of group_idx
 * equal to g, for g in [0, num_groups); entries outside that range (-1 among
 * them) count nowhere. group_idx: (N, K) i64 contiguous; num_groups in
 * [1, 4096]; counts: (num_groups) i32, overwritten. */
tk_status tk_group_count(tk_context ctx, const tk_tensor *group_idx, int32_t num_groups, tk_tensor *counts,
                         tk_stream stream);

/* inplace_unique_group_indices (moe.md 2.8): in each row of group_indices,
 * every later occurrence of a non-negative id becomes -1, in place (the first
 * occurrence and negative entries stay). group_indices: (N, K) i64
 * contiguous, K <= 64; num_groups in [1, 128] (as the reference; ids are
 * compared, not looked up, so any value is safe). */
tk_status tk_inplace_unique_group_indices(tk_context ctx, tk_tensor *group_indices, int32_t num_groups,
                                          tk_stream stream);

/* Scoring functions of tk_top2_sum_gate (the reference's ScoringFunc). */
typedef enum tk_scoring {
  TK_SCORING_SIGMOID = 0,
  TK_SCORING_SQRTSOFTPLUS = 1,
  TK_SCORING_SOFTMAX = 2,
  TK_SCORING_IDENTITY = 3 /* rejected, as by the reference's host wrapper */
} tk_scoring;

/* top2_sum_gate (moe.md 2.3): the routing gate of one rank in one kernel.
 * Per token t of logits (N, E) f32: scores u (sigmoid, sqrt(softplus) or
 * softmax), selection keys b = u + bias (softmax: logit + bias), the
 * num_topk_groups groups of best top-2 sums when 0 < num_topk_groups <
 * num_groups, the num_topk best experts (greater b, then lower id), weights
 * u / (1e-20 + sum of the chosen u, in slot order) * routed_scaling_factor,
 * with use_shared_as_routed num_shared_experts slots E + j of weight 1, each
 * slot's id through to_physical_map (replica (ep_rank + t 23333) mod
 * logical_count, in 64 bits) and the EP/TP ownership of mask_indices_by_tp
 * (R = (E + X) / num_ep_ranks with X the map's columns - 1, -1 for ids this
 * TP rank does not own). mask (N) bytes: 0 = padding row (ids -1, weights 0,
 * unmapped -1); fix_routing_mask (N) bytes: non-zero = reuse the ids stored
 * in unmapped_topk_idx; unmapped_topk_idx (N, K) i64, inner stride 1,
 * receives the logical routed ids. topk_idx (N, K + S) i64, topk_weights
 * (N, K + S) f32. E <= 1024. Every precondition of moe.md 2.3's Validation
 * is an error; weights of slots masked to -1 keep their value (Q15); a
 * logical_count outside [1, X + 1] (data, not checked) gives that slot -1. */
tk_status tk_top2_sum_gate(tk_context ctx, const tk_tensor *logits, const tk_tensor *bias, int32_t num_topk,
                           int32_t num_topk_groups, int32_t num_groups, int32_t use_shared_as_routed,
                           int32_t num_shared_experts, float routed_scaling_factor, int32_t ep_rank,
                           int32_t num_ep_ranks, int32_t tp_rank, int32_t num_tp_ranks, tk_scoring scoring,
                           const tk_tensor *mask, const tk_tensor *fix_routing_mask, const tk_tensor *to_physical_map,
                           const tk_tensor *logical_count, tk_tensor *unmapped_topk_idx, tk_tensor *topk_idx,
                           tk_tensor *topk_weights, tk_stream stream);

/* get_fused_mapping (moe.md 2.9): the expert-major layout of the slots of
 * topk_idx (N, K) i64 contiguous, ids in [0, E) (-1, and any other id, is an
 * empty slot). With c_e the slots of expert e and a_e = align(c_e, alignment):
 * expert e owns positions [expert_start[e], expert_end[e]), expert_start the
 * exclusive sum of a_e; num_tokens_per_expert[e] = a_e (aligned, as the
 * reference's). Its slots take the first c_e positions in ascending flat
 * order t * K + k (the canonical order, the same on every GPU, moe.md Q1):
 * token_topk_to_pos[t, k] = p, pos_to_expert[p] = e, pos_to_token[p] = t,
 * pos_to_token_topk[p] = t * K + k; every other position is -1 (padding and
 * the tail past sum a_e), and so is token_topk_to_pos of an empty slot.
 * Outputs: the three pos_to_* (M) i32, token_topk_to_pos (N, K) i32,
 * expert_start, expert_end, num_tokens_per_expert (E) i32, all contiguous;
 * 1 <= E <= 1024, alignment >= 1. M is the caller's: at least sum a_e, which
 * tk_fused_mapping_max_positions bounds without looking at the ids; positions
 * at or past M are never written. num_positions: NULL, or where to store
 * sum a_e: the call then waits for the stream, and fails with
 * TK_ERROR_INVALID_ARGUMENT when M is smaller (the outputs are then
 * incomplete). Three kernels in stream order and scratch memory from the
 * context. */
tk_status tk_get_fused_mapping(tk_context ctx, const tk_tensor *topk_idx, int32_t num_experts, int32_t alignment,
                               tk_tensor *pos_to_expert, tk_tensor *pos_to_token, tk_tensor *pos_to_token_topk,
                               tk_tensor *token_topk_to_pos, tk_tensor *expert_start, tk_tensor *expert_end,
                               tk_tensor *num_tokens_per_expert, int64_t *num_positions, tk_stream stream);

/* The positions get_fused_mapping may need for N tokens of K slots over E
 * experts: floor((N K + (alignment - 1) E) / alignment) * alignment (the
 * reference's upper bound); -1 for a negative size, E < 1 or alignment < 1. */
int64_t tk_fused_mapping_max_positions(int64_t num_tokens, int64_t num_topk, int64_t num_experts, int64_t alignment);

/* expand_to_fused (moe.md 2.10): expanded_x[p, :] = x[t, :] for every slot
 * (t, k) whose position p = token_topk_to_pos[t, k] is in [0, M), and
 * expanded_x[p, :] = 0 for every p with pos_to_expert[p] < 0 (padding); other
 * rows are not written (with a mapping from get_fused_mapping there are
 * none). A bit copy. x: (N, H) contiguous, any dtype; token_topk_to_pos:
 * (N, K) i32 contiguous, 1 <= K <= 64; pos_to_expert: (M) i32 (only its sign
 * is read, so pos_to_token serves too); expanded_x: (M, H) of x's dtype,
 * contiguous. Positions outside [0, M) write nothing. Two kernels in stream
 * order: padding rows, then the copies. */
tk_status tk_expand_to_fused(tk_context ctx, const tk_tensor *x, const tk_tensor *token_topk_to_pos,
                             const tk_tensor *pos_to_expert, tk_tensor *expanded_x, tk_stream stream);

/* expand_to_fused_with_sf (moe.md 2.11): expand_to_fused of x and of its
 * per-token scale factors x_sf, copied as opaque 32-bit words (zero for
 * padding rows). x_sf: (N, Hs) f32 with Hs = ceil(H / num_per_channels), or
 * i32 packed UE8M0 with Hs = ceil(ceil(H / num_per_channels) / 4) (which
 * needs use_tma_aligned_col_major_sf); num_per_channels: 32 or 128.
 * expanded_sf: (M, Hs) of x_sf's dtype, row-major contiguous, or with
 * use_tma_aligned_col_major_sf the column-major view of strides
 * (1, align(M, 4)) over storage (Hs, align(M, 4)); its storage columns
 * [M, align(M, 4)) are never written. */
tk_status tk_expand_to_fused_with_sf(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                     int32_t num_per_channels, const tk_tensor *token_topk_to_pos,
                                     const tk_tensor *pos_to_expert, int32_t use_tma_aligned_col_major_sf,
                                     tk_tensor *expanded_x, tk_tensor *expanded_sf, tk_stream stream);

/* reduce_fused (moe.md 2.12): out[t, h] = cast(acc * sf[0]) (acc without
 * sf), where acc starts at +0 and for k = 0 .. K-1, when p =
 * token_topk_to_pos[t, k] is in [0, M), acc = fmaf(x[p, h], s, acc) with
 * s = topk_weights[t, k] (1 without weights), times x_sf[p] when given. The
 * cast is out's dtype: x's (f32 as is, bf16 round to nearest even) or e4m3
 * (nearest even, saturating at +-448, NaN -> 0x7F; the reference's
 * fp8_format 'e4m3'). x: (M, H) f32 or bf16 contiguous (any H; the
 * reference asks H % 256 == 0); x_sf: NULL or (M) f32; topk_weights: NULL or
 * (N, K) f32 contiguous; token_topk_to_pos: (N, K) i32 contiguous,
 * 1 <= K <= 64; sf: NULL or (1) f32, only with an e4m3 out; out: (N, H)
 * contiguous. M = 0 is valid (every token's row is cast(0 * sf)). */
tk_status tk_reduce_fused(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf, const tk_tensor *topk_weights,
                          const tk_tensor *token_topk_to_pos, const tk_tensor *sf, tk_tensor *out, tk_stream stream);

/* ---- Engram (mhc_engram.md §4) ---- */

/* engram_hash (4.1): for layer l and token t, p_i = id[t, i] * mult[l, i]
 * (i64, wrapping), h_i = p_0 ^ p_1 ^ ... ^ p_i, and for order i in [1, N) and
 * table j in [0, E), with c = (i - 1) E + j: out[l, t, c] =
 * (int32)(floormod(h_i, vocab_sizes[l, i - 1, j]) + offsets[l, c]) (the sum
 * wraps in 32 bits). ngram_token_ids (T, N) i32, multipliers (Lh, N) i64,
 * vocab_sizes (Lh, N - 1, E) i32, offsets (Lh, (N - 1) E) i32, out
 * (Lh, T, (N - 1) E) i32, all contiguous; 2 <= N <= 8, Lh <= 16,
 * (N - 1) E <= 1024. A modulus must be positive (data: a non-positive one
 * gives -1 in its column, or an error with TK_CHECK_INDICES). Bit-exact. */
tk_status tk_engram_hash(tk_context ctx, const tk_tensor *ngram_token_ids, const tk_tensor *multipliers,
                         const tk_tensor *vocab_sizes, const tk_tensor *offsets, tk_tensor *out, tk_stream stream);

/* The reference's make_offsets on host arrays: per layer, the exclusive sum
 * of vocab_sizes (layers, orders, tables) in row-major order, into offsets
 * (layers, orders tables). An error for a non-positive size or a layer's
 * total above 2^31 - 1 (offsets unchanged). */
tk_status tk_engram_make_offsets(const int32_t *vocab_sizes, int64_t layers, int64_t orders, int64_t tables,
                                 int32_t *offsets);

/* fused_weight (4.2): weight_fused = f32(weight_hidden) * f32(weight_embed),
 * exact. weight_hidden, weight_embed (n, H) bf16, weight_fused (n, H) f32,
 * contiguous; any H (the reference asks H % 256 == 0). */
tk_status tk_engram_fused_weight(tk_context ctx, const tk_tensor *weight_hidden, const tk_tensor *weight_embed,
                                 tk_tensor *weight_fused, tk_stream stream);

/* engram_gate_fwd (4.3): per token t and stream h, over d < H in fp32:
 * raw = sum (x wf) k, rx = 1 / sqrt(sum x^2 / H + eps), rk likewise for k,
 * s = raw rx rk / sqrt(H), g = sigmoid(copysign(sqrt(max(|s|, clamp)), s)),
 * out[t, h, :] = bf16(x + g v[t, :]). hidden_states (T, n, H) bf16 and out
 * (T, n, H) bf16 contiguous; k (T, n, H) and v (T, H) bf16 with unit last
 * strides (other strides free, multiples of 8 elements); weight_fused (n, H)
 * f32 contiguous (tk_engram_fused_weight). dot (raw), gate_score (g), rstd_x
 * (rx), rstd_k (rk): (T, n) f32 contiguous, all four (save_for_backward) or
 * all NULL; out is the same either way, bit for bit. eps >= 0 and clamp_value
 * >= 0 finite (the backward needs clamp_value > 0). Any H up to 32768 (the
 * reference asks a multiple of 256, at least 512); T = 0 writes nothing. The
 * sums' order differs from the reference's: within the spec's tolerance
 * (calc_diff < 2e-10), not bit for bit. */
tk_status tk_engram_gate_fwd(tk_context ctx, const tk_tensor *hidden_states, const tk_tensor *k, const tk_tensor *v,
                             const tk_tensor *weight_fused, float eps, float clamp_value, tk_tensor *out,
                             tk_tensor *dot, tk_tensor *gate_score, tk_tensor *rstd_x, tk_tensor *rstd_k,
                             tk_stream stream);

/* engram_gate_bwd (4.4): the gate's gradients from the forward's saved
 * statistics. For token t and stream h, with a = rstd_x rstd_k / sqrt(H) and
 * dg = sum_d grad_out v: rho = 0 where (|dot| / sqrt(H)) rstd_x rstd_k <
 * clamp_value (evaluated in f32: the clamp holds, no gradient flows), else
 * dg g (1 - g) / 2 sqrt(a / |dot|); grad_x = bf16(grad_out + rho (k wf - x
 * dot rstd_x^2 / H)), grad_k = bf16(rho (x wf - k dot rstd_k^2 / H)),
 * grad_v[t] = bf16(sum over h in order of grad_out g), and grad_w_partial[p]
 * = sum of rho x k over the tokens [p c, (p + 1) c), c = ceil(T / P) (zero
 * rows where that range is empty; tk_engram_grad_w_reduce finishes them).
 * grad_out, hidden_states, grad_x, grad_k (T, n, H) bf16, grad_v (T, H) bf16,
 * weight_fused (n, H) f32, dot, gate_score, rstd_x, rstd_k (T, n) f32 and
 * grad_w_partial (P, n, H) f32 contiguous; k (T, n, H) and v (T, H) bf16
 * with unit last strides. Any n from 1 to 16 (the reference asks n == 4), H
 * up to 8192, P >= 1 (the reference uses the SM count; results depend on P
 * only, never on the device); clamp_value > 0 finite. No float atomics: the
 * same bits every run. */
tk_status tk_engram_gate_bwd(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *hidden_states,
                             const tk_tensor *k, const tk_tensor *v, const tk_tensor *weight_fused,
                             const tk_tensor *dot, const tk_tensor *gate_score, const tk_tensor *rstd_x,
                             const tk_tensor *rstd_k, float clamp_value, tk_tensor *grad_x, tk_tensor *grad_k,
                             tk_tensor *grad_v, tk_tensor *grad_w_partial, tk_stream stream);

/* grad_w_reduce (4.5): gW = sum over p of grad_w_partial[p], then
 * grad_weight_hidden += gW f32(weight_embed) and grad_weight_embed += gW
 * f32(weight_hidden), in place. grad_w_partial (P, n, H) f32, the weights
 * (n, H) bf16, the gradients (n, H) f32 (two different buffers), all
 * contiguous; any P (the reference asks P % 4 == 0) and H. The sum's order
 * is fixed (by the schedule, not the SM count): the same bits every run,
 * within fp32 rounding of the reference's sequential sum. P = 0 adds nothing. */
tk_status tk_engram_grad_w_reduce(tk_context ctx, const tk_tensor *grad_w_partial, const tk_tensor *weight_hidden,
                                  const tk_tensor *weight_embed, tk_tensor *grad_weight_hidden,
                                  tk_tensor *grad_weight_embed, tk_stream stream);

/* ---- mHC: the n residual streams (mhc_engram.md §3.1, 3.5, 3.7) ----
 * A token's residual is n bf16 streams of H columns; the reference's
 * [B, S, n, H] tensors are passed flattened to (T, n, H), its [..., n, 1]
 * mixes as (T, n). All tensors contiguous; 1 <= n <= 8, any H; T = 0 writes
 * nothing. Each per-element sum runs in the spec's order with one rounding
 * per term (fma), so the results are bit-exact against that order on the
 * GPU and the CPU path; the sums over H (grad_mix, grad_post, grad_comb)
 * are in a fixed order, within fp32 rounding of the exact sums, and the
 * same bits every run. Outputs must not overlap inputs (except grad_x of
 * tk_mhc_pre_apply_mix_bwd, updated in place). */

/* expand_to_mhc (3.1): out[t, m, :] = hidden[t, :] for every stream m.
 * hidden (T, H), out (T, n, H) bf16; n is out's dimension 1. */
tk_status tk_expand_to_mhc_fwd(tk_context ctx, const tk_tensor *hidden, tk_tensor *out, tk_stream stream);
/* grad_hidden[t, d] = bf16(0 + grad_out[t, 0, d] + ... + grad_out[t, n - 1, d])
 * in fp32. grad_out (T, n, H), grad_hidden (T, H) bf16. */
tk_status tk_expand_to_mhc_bwd(tk_context ctx, const tk_tensor *grad_out, tk_tensor *grad_hidden, tk_stream stream);

/* mhc_pre_apply_mix (3.5): out[t, d] = bf16(acc), acc = 0 then acc =
 * fma(mix[t, m], x[t, m, d], acc) for m = 0..n-1. x (T, n, H) bf16, mix
 * (T, n) f32, out (T, H) bf16. */
tk_status tk_mhc_pre_apply_mix_fwd(tk_context ctx, const tk_tensor *x, const tk_tensor *mix, tk_tensor *out,
                                   tk_stream stream);
/* grad_x[t, m, d] = bf16(fma(mix[t, m], grad_out[t, d], a)) where a is
 * grad_x's own element with accumulate = 1 (the residual-gradient buffer of
 * spec 2.1, updated in place) and +0 with accumulate = 0; grad_mix[t, m] =
 * sum over d of grad_out[t, d] x[t, m, d]. grad_out (T, H) bf16, x and
 * grad_x (T, n, H) bf16, mix and grad_mix (T, n) f32. */
tk_status tk_mhc_pre_apply_mix_bwd(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *x, const tk_tensor *mix,
                                   int accumulate, tk_tensor *grad_x, tk_tensor *grad_mix, tk_stream stream);

/* mhc_post (3.7): out[t, o, d] = bf16(acc), acc = post_mix[t, o] x[t, d],
 * then acc = fma(comb_mix[t, i, o], residual[t, i, d], acc) for i =
 * 0..n-1 (comb is [input stream, output stream]). x (T, H) and residual,
 * out (T, n, H) bf16; post_mix (T, n) and comb_mix (T, n, n) f32. */
tk_status tk_mhc_post_fwd(tk_context ctx, const tk_tensor *x, const tk_tensor *residual, const tk_tensor *post_mix,
                          const tk_tensor *comb_mix, tk_tensor *out, tk_stream stream);
/* The backward, for any n up to 8 (the reference asks n == 4):
 * grad_residual[t, i, d] = bf16(comb[t, i, 0] g[t, 0, d], then fma over o
 * = 1..n-1), grad_x[t, d] likewise with post[t, o]; grad_post[t, o] = sum
 * over d of x[t, d] g[t, o, d], grad_comb[t, i, o] = sum over d of
 * residual[t, i, d] g[t, o, d], with g = grad_out. grad_residual is fresh
 * (the first of spec 2.1's three contributions: pass it on as
 * tk_mhc_pre_apply_mix_bwd's grad_x with accumulate = 1). Shapes as the
 * forward's, grad_* as their tensors'. */
tk_status tk_mhc_post_bwd(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *x, const tk_tensor *residual,
                          const tk_tensor *post_mix, const tk_tensor *comb_mix, tk_tensor *grad_x,
                          tk_tensor *grad_residual, tk_tensor *grad_post, tk_tensor *grad_comb, tk_stream stream);

/* sinkhorn_normalize (3.4): per n x n matrix, S = softmax over each row
 * (the row's maximum subtracted), P = S + eps, then P[r, c] /= (sum over r
 * of P[r, c] + eps) (a column step), and repeat - 1 times a row step (the
 * sum over c) then a column step; fp32, true divisions. x, out (M, n, n) f32
 * contiguous (the reference's [..., n, n] flattened); 1 <= n <= 16, 1 <=
 * repeat <= 32, eps >= 0 finite; M = 0 writes nothing. Within fp32
 * rounding of the fp64 steps (exp is CUDA's expf on the GPU, the C
 * library's on the CPU path). */
tk_status tk_sinkhorn_normalize_fwd(tk_context ctx, const tk_tensor *x, int32_t repeat, float eps, tk_tensor *out,
                                    tk_stream stream);
/* The backward: grad_x from grad_out by recomputing the forward and walking
 * its steps in reverse ((G - sum G X / d) / d per normalisation, the
 * softmax's (G - sum G S) S); as autograd through the forward loop, within
 * fp32 rounding of the fp64 gradient: it divides by reciprocals (1 / d once
 * a denominator), not by IEEE divisions as the forward does. Shapes as the
 * forward's. */
tk_status tk_sinkhorn_normalize_bwd(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *x, int32_t repeat,
                                    float eps, tk_tensor *grad_x, tk_stream stream);

/* mhc_pre_norm_fn (3.2): per token, the residual row x (T, n, H) bf16
 * flattened to G = n H against fn (n3, G) f32 (1 <= n3 <= 32; norm_weight
 * (G) f32 or NULL, folded in as fn w): mul[t, j] = sum_k x[t, k] tf32(W[j,
 * k]) on tensor cores (products exact, sums in fp32 in the tensor core's
 * order: within fp32 rounding of the exact sum, not bit-exact),
 * ss[t] = sum_k x^2, mix = mul rsqrt(ss / G + eps). mix, mul (T, n3) and ss
 * (T) f32 contiguous; mul and ss (what the backward takes) may be NULL. G a
 * multiple of 8; eps finite, > 0. residual, fn, norm_weight and the
 * gradients 16-byte aligned. Outputs must not overlap inputs or each other
 * (grad_residual may be the accumulation buffer it reads). */
tk_status tk_mhc_pre_norm_fn_fwd(tk_context ctx, const tk_tensor *residual, const tk_tensor *fn,
                                 const tk_tensor *norm_weight, float eps, tk_tensor *mix, tk_tensor *mul, tk_tensor *ss,
                                 tk_stream stream);
/* The backward from grad_mix (T, n3) and the forward's mul and ss:
 * dmul = grad_mix r, dss = -(sum_j grad_mix mul) r / 2 (ss + eps G);
 * grad_residual = bf16(acc + sum_j tf32(dmul) W~ + 2 x dss), acc its own
 * contents with accumulate = 1 (the residual-gradient buffer of spec 2.1,
 * updated in place) or 0; grad_fn = sum_t tf32(dmul) x (times w when
 * folded) and grad_norm_weight = sum_j dW fn (given exactly when
 * norm_weight is), written. Sums over tokens in a fixed order (no atomics).
 * T = 0 writes zero parameter gradients. */
tk_status tk_mhc_pre_norm_fn_bwd(tk_context ctx, const tk_tensor *grad_mix, const tk_tensor *residual,
                                 const tk_tensor *fn, const tk_tensor *norm_weight, const tk_tensor *mul,
                                 const tk_tensor *ss, float eps, int accumulate, tk_tensor *grad_residual,
                                 tk_tensor *grad_fn, tk_tensor *grad_norm_weight, tk_stream stream);
/* mhc_pre_split_mixes (3.3): a token's 2n + n^2 logits u (input_mixes (T,
 * 2n + n^2) f32, unit last stride, rows may be strided) through z_j = u_j
 * scale[g] + base[j], g the column's group (0: j < n, 1: j < 2n, 2: the
 * rest): pre[t, i] = sigmoid(z_i) + pre_eps, post[t, i] = post_mult_value
 * sigmoid(z_{n+i}), comb[t, r, c] = z_{2n + r n + c}. scale (3), base (2n +
 * n^2) f32; pre, post (T, n), comb (T, n, n) f32 contiguous (the
 * reference's [B, S, ...] flattened); 1 <= n <= 8. Within fp32 rounding of
 * the fp64 math; T = 0 writes nothing. */
tk_status tk_mhc_pre_split_mixes_fwd(tk_context ctx, const tk_tensor *input_mixes, const tk_tensor *scale,
                                     const tk_tensor *base, float post_mult_value, float pre_eps, tk_tensor *pre,
                                     tk_tensor *post, tk_tensor *comb, tk_stream stream);
/* The backward from all three outputs' gradients (zeros for an unused one)
 * and the forward's post: dz = grad_pre s (1 - s) with s = sigmoid(z)
 * recomputed, grad_post post (1 - post / post_mult_value) (non-zero), and
 * grad_comb; grad_input = dz scale[g] (T, 2n + n^2) contiguous, grad_base
 * (2n + n^2) the sum over tokens of dz, grad_scale (3) the sums of dz u per
 * group. The parameter gradients are per-CTA sums (one per `rows` tokens of
 * the schedule, 128 by default at n = 4) added in a fixed order by a second
 * kernel: for a given schedule bit-identical from call to call and on any
 * GPU or SM count (no atomics); T = 0 gives zeros. Outputs must not overlap
 * inputs or each other. */
tk_status tk_mhc_pre_split_mixes_bwd(tk_context ctx, const tk_tensor *grad_pre, const tk_tensor *grad_post,
                                     const tk_tensor *grad_comb, const tk_tensor *input_mixes, const tk_tensor *post,
                                     const tk_tensor *scale, const tk_tensor *base, float post_mult_value,
                                     tk_tensor *grad_input, tk_tensor *grad_scale, tk_tensor *grad_base,
                                     tk_stream stream);
/* mhc_head_compute_mix (3.6): out[t, j] = sigmoid(u[t, j] scale[0] + base[j])
 * + pre_eps. input_mix (T, n) f32 with unit last stride (mhc_head's column
 * slice of the wider logits is accepted as it is: its rows may be strided),
 * scale (1), base (n) f32, out (T, n) f32 contiguous; 1 <= n <= 8. */
tk_status tk_mhc_head_compute_mix_fwd(tk_context ctx, const tk_tensor *input_mix, const tk_tensor *scale,
                                      const tk_tensor *base, float pre_eps, tk_tensor *out, tk_stream stream);
/* The backward: dz = grad_out s (1 - s), grad_input = dz scale[0] (T, n)
 * contiguous, grad_scale (1) = sum of dz u, grad_base (n) = sum over tokens
 * of dz; the sums as split_mixes' (fixed order, no atomics). */
tk_status tk_mhc_head_compute_mix_bwd(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *input_mix,
                                      const tk_tensor *scale, const tk_tensor *base, tk_tensor *grad_input,
                                      tk_tensor *grad_scale, tk_tensor *grad_base, tk_stream stream);

/* mhc_pre_big_fuse (3.8), inference: tk_mhc_pre_norm_fn_fwd without a norm
 * weight (fold one into fn first: the reference's fused path ignores it),
 * then tk_mhc_pre_split_mixes_fwd, tk_sinkhorn_normalize_fwd on the comb
 * logits and tk_mhc_pre_apply_mix_fwd with pre, in three kernels whose
 * results are bit-identical to that chain's (same ops, same order, the
 * same schedules as those calls would take). residual (T, n, H) bf16, fn
 * (2n + n^2, n H), scale (3), base (2n + n^2) f32; post_mix (T, n),
 * comb_mix (T, n, n) f32 (Sinkhorn-normalised), layer_input (T, H) bf16;
 * all contiguous; 1 <= n <= 4, n H a multiple of 8, 1 <= sinkhorn_repeat <=
 * 32; the eps and post_mult_value as the unfused calls take them. The
 * reference's n_splits is not taken (it forces 1). T = 0 writes nothing. */
tk_status tk_mhc_pre_big_fuse(tk_context ctx, const tk_tensor *residual, const tk_tensor *fn, const tk_tensor *scale,
                              const tk_tensor *base, float rms_eps, float pre_eps, float sinkhorn_eps,
                              float post_mult_value, int32_t sinkhorn_repeat, tk_tensor *post_mix, tk_tensor *comb_mix,
                              tk_tensor *layer_input, tk_stream stream);

/* mhc_multilayer_recompute (3.9): a segment of L layers rebuilt from its
 * first residual R_0 = initial_residual (T, n, H) bf16: for l < L,
 * layer_input[l] (T, H) bf16 = apply_mix(R_l, pre_mix[l] (T, n) f32), and
 * for l < Lp (num_post_layers, L or L - 1) residual[l] (T, n, H) bf16 =
 * R_{l+1} = post(layer_output[l] (T, H) bf16, R_l, post_mix[l] (T, n),
 * comb_mix[l] (T, n, n) f32): bit-identical to calling
 * tk_mhc_pre_apply_mix_fwd and tk_mhc_post_fwd layer by layer. The lists are
 * C arrays of tensors (L for pre_mix and layer_input, Lp for the others),
 * their pointers passed in the launch's parameters (no table copied to the
 * device); up to 10 layers per launch, the streams kept in registers across
 * them (a longer segment takes one launch per 10, each re-reading the
 * residual the last wrote). All tensors contiguous with the same T, n and
 * H; 1 <= n <= 8. Outputs must not overlap inputs. T = 0 writes nothing. */
tk_status tk_mhc_multilayer_recompute(tk_context ctx, const tk_tensor *initial_residual, int32_t num_layers,
                                      const tk_tensor *pre_mix, int32_t num_post_layers, const tk_tensor *layer_output,
                                      const tk_tensor *post_mix, const tk_tensor *comb_mix, tk_tensor *layer_input,
                                      tk_tensor *residual, tk_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TK_TK_H */
