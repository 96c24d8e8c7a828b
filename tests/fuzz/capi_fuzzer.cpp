//===- capi_fuzzer.cpp - every entry point of tk.h with decoded arguments -===//
//
// One input is one call: the first byte picks the entry point, the rest
// decode into its tensors (host memory, guarded: see fuzz_input.h), formats,
// group sizes, flags, block sizes and clamps. The call runs on the CPU path.
// Findings, each an abort: a crash or fault inside tk; a status outside
// tk_status; a failure without a message; a failed call that changed any
// tensor's bytes (tk.h: no operator writes its outputs when it returns an
// error, except TK_ERROR_INVALID_DATA); bytes written outside a tensor; a
// kernel that failed to build for arguments the entry point accepted; an
// output laid over another tensor's bytes (the harness places tensors inside
// earlier ones' buffers now and then) that the call accepted.
//
// Run it on a machine without a GPU: a tensor placed on the CUDA device must
// come back as NO_DRIVER there, while on a GPU machine its made-up pointer
// would reach a kernel.
//===----------------------------------------------------------------------===//
#include "capi_calls.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <functional>

using namespace tk::fuzz;

namespace {

/// With TK_FUZZ_STATS set: calls and successes per entry point, printed at
/// exit (how many inputs got past validation into a kernel).
struct Stats {
  long calls[kNumEntryPoints] = {}, successes[kNumEntryPoints] = {};
  ~Stats() {
    if (!std::getenv("TK_FUZZ_STATS"))
      return;
    for (int i = 0; i < kNumEntryPoints; ++i)
      std::fprintf(stderr, "%-55s %8ld calls, %8ld succeeded\n", entryName(i), calls[i], successes[i]);
  }
} stats;

[[noreturn]] void finding(const char *what) {
  std::fprintf(stderr, "capi_fuzzer: %s (last error: %s)\n", what, tk_last_error());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Call c(data, size);
  int entry = 0;
  std::function<tk_status()> call = decode(c, entry);
  const std::vector<uint64_t> before = c.tensors.digests();
  const tk_status s = call();
  ++stats.calls[entry];
  stats.successes[entry] += s == TK_SUCCESS;
  if ((int)s < 0 || (int)s > (int)TK_ERROR_INVALID_DATA)
    finding("a status outside tk_status");
  if (!c.tensors.intact())
    finding("bytes written outside a tensor");
  // An output sharing bytes with another tensor of the call is refused (tk.h): only row-major pairs are judged
  // here, whose bytes are their whole spans (strided views of one buffer may interleave without sharing one).
  if (s == TK_SUCCESS && !c.tensors.outputSharingBytes().empty())
    finding(("an output that shares memory was accepted: " + c.tensors.outputSharingBytes()).c_str());
  if (s != TK_SUCCESS) {
    if (!*tk_last_error())
      finding("a failure without a message");
    if (s != TK_ERROR_INVALID_DATA && c.tensors.digests() != before)
      finding("a failed call changed a tensor's bytes");
    // Arguments the entry point accepted must give a kernel that builds: shapes a kernel cannot take are
    // refused before (TK_ERROR_UNSUPPORTED, naming the limit), not found by the DSL or the compiler.
    if (s == TK_ERROR_COMPILE)
      finding("a kernel failed to build");
  }
  return 0;
}
