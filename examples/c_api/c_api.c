/* Calls tk's C API from an installed prefix: the fused Engram weight of two
 * (2, 3) bf16 weights on the CPU path (host tensors), checked exactly. */
#include <stdio.h>
#include <string.h>
#include <tk/tk.h>

int main(void) {
  /* bf16 1.5, -2, 0.25 and 3, 0.5, -1 (their f32 bits' high halves), twice. */
  _Alignas(16) uint16_t wh[6] = {0x3FC0, 0xC000, 0x3E80, 0x3FC0, 0xC000, 0x3E80};
  _Alignas(16) uint16_t we[6] = {0x4040, 0x3F00, 0xBF80, 0x4040, 0x3F00, 0xBF80};
  const float want[6] = {4.5f, -1.0f, -0.25f, 4.5f, -1.0f, -0.25f};
  _Alignas(16) float wf[6] = {0}; /* tk's kernels read 16-byte vectors */
  tk_context ctx = NULL;
  if (tk_context_create(&ctx) != TK_SUCCESS) {
    fprintf(stderr, "tk_context_create: %s\n", tk_last_error());
    return 1;
  }
  tk_tensor th = {wh, TK_BF16, 2, {2, 3}, {3, 1}, TK_DEVICE_CPU}, te = th, tf = th;
  te.data = we;
  tf.data = wf, tf.dtype = TK_F32;
  if (tk_engram_fused_weight(ctx, &th, &te, &tf, NULL) != TK_SUCCESS) {
    fprintf(stderr, "tk_engram_fused_weight: %s\n", tk_last_error());
    return 1;
  }
  tk_context_destroy(ctx);
  if (memcmp(wf, want, sizeof want) != 0) {
    fprintf(stderr, "wrong product: %g %g %g\n", wf[0], wf[1], wf[2]);
    return 1;
  }
  printf("c_api: tk %s, fused weight exact on the CPU path\n", tk_version());
  return 0;
}
