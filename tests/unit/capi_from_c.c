/* The C API is plain C: this file is compiled as C and linked to libtk.so. */
#include "tk/tk.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  tk_context ctx = NULL;
  if (tk_context_create(&ctx) != TK_SUCCESS || !ctx) {
    fprintf(stderr, "FAIL: tk_context_create: %s\n", tk_last_error());
    return 1;
  }
  tk_status s = tk_per_token_cast(ctx, NULL, NULL, NULL, TK_FORMAT_E4M3, 128, 0, NULL, NULL, NULL);
  if (s != TK_ERROR_INVALID_ARGUMENT || strstr(tk_last_error(), "x is null") == NULL) {
    fprintf(stderr, "FAIL: expected an invalid-argument error naming x, got %d: %s\n", s, tk_last_error());
    return 1;
  }
  printf("tk %s from C: %s -> \"%s\"\n", tk_version(), tk_status_string(s), tk_last_error());
  tk_context_destroy(ctx);
  printf("1 passed, 0 failed\n");
  return 0;
}
