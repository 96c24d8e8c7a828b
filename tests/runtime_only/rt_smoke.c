/* libtk_rt from C: the same C API, validation included; host tensors are
 * refused (no CPU path without the compiler); device tensors reach the
 * loader, which on a machine without a GPU says so. */
#include "tk/tk.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int expect(int ok, const char *what) {
  if (!ok)
    fprintf(stderr, "FAIL: %s (%s)\n", what, tk_last_error());
  return ok ? 0 : 1;
}

static tk_tensor matrix(void *data, tk_device_type device) {
  tk_tensor t;
  memset(&t, 0, sizeof t);
  t.data = data, t.dtype = TK_BF16, t.ndim = 2, t.device = device;
  t.shape[0] = t.shape[1] = 64, t.strides[0] = 64, t.strides[1] = 1;
  return t;
}

int main(int argc, char **argv) {
  int failures = 0;
  const int have_gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
  tk_context ctx = NULL;
  failures += expect(tk_context_create(&ctx) == TK_SUCCESS && ctx, "tk_context_create");
  tk_status s = tk_per_token_cast(ctx, NULL, NULL, NULL, TK_FORMAT_E4M3, 128, 0, NULL, NULL, NULL);
  failures += expect(s == TK_ERROR_INVALID_ARGUMENT && strstr(tk_last_error(), "x is null"), "validation names x");
  static uint16_t x[64 * 64], out[64 * 64];
  tk_tensor xt = matrix(x, TK_DEVICE_CPU), ot = matrix(out, TK_DEVICE_CPU);
  memset(out, 0x5a, sizeof out);
  s = tk_transpose(ctx, &xt, &ot, NULL);
  failures += expect(s == TK_ERROR_UNSUPPORTED && strstr(tk_last_error(), "libtk.so"), "host tensors refused");
  failures += expect(out[0] == 0x5a5a && out[4095] == 0x5a5a, "nothing written on a refused call");
  printf("host tensors: %s: %s\n", tk_status_string(s), tk_last_error());
  if (!have_gpu) {
    /* Device tensors (never dereferenced: the device check comes first). */
    xt.device = ot.device = TK_DEVICE_CUDA;
    s = tk_transpose(ctx, &xt, &ot, NULL);
    failures += expect(s == TK_ERROR_NO_DRIVER || s == TK_ERROR_NO_DEVICE, "device tensors without a GPU");
    printf("device tensors without a GPU: %s: %s\n", tk_status_string(s), tk_last_error());
  }
  tk_context_destroy(ctx);
  printf("libtk_rt %s: %d failed\n", tk_version(), failures);
  return failures ? 1 : 0;
}
