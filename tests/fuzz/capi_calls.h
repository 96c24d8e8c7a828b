//===- capi_calls.h - one C API call decoded from a fuzzer's bytes -------===//
//
// The decoding the C API harness uses, shared with the tests that drive it
// with chosen bytes (every entry point's default call must succeed; each of
// its tensors made invalid must fail without writing anything).
//===----------------------------------------------------------------------===//
#pragma once

#include "fuzz_input.h"

#include <functional>

namespace tk::fuzz {

constexpr int kNumEntryPoints = 49;

/// One call's state: its input, sizes, tensors, scalars, and the context
/// (shared by every call of the process, or null).
struct Call {
  Input in;
  Sizes sizes;
  Tensors tensors;
  tk_context ctx = nullptr;
  int32_t pairs[2][2];
  float floats[2];
  int pairCount = 0, floatCount = 0;
  /// The tensor (in drawing order) whose last dimension no other argument
  /// pins (e.g. topk_gate's expert count), or -1: changing it is a valid call.
  int freeLastDimension = -1;

  /// Reads the sizes and whether ctx is null: for an input of zeros the
  /// shared context and 64 x 256.
  Call(const uint8_t *data, size_t size);
  int64_t m() const { return sizes.m; }
  int64_t k() const { return sizes.k; }
  const tk_tensor *t(tk_dtype dtype, std::vector<int64_t> shape) { return tensors.draw(in, sizes, {dtype, shape}); }
  const tk_tensor *opt(tk_dtype dtype, std::vector<int64_t> shape) {
    return tensors.optional(in, sizes, {dtype, shape});
  }
  tk_tensor *out(tk_dtype dtype, std::vector<int64_t> shape) { return written(t(dtype, shape)); }
  tk_tensor *outOpt(tk_dtype dtype, std::vector<int64_t> shape) { return written(opt(dtype, shape)); }
  /// Marks a drawn tensor as one the call writes.
  tk_tensor *written(const tk_tensor *t) {
    tensors.markOutput(t);
    return const_cast<tk_tensor *>(t);
  }
  tk_format fmt();
  /// A group or block size; the first choice is `preferred`.
  int32_t group(int32_t preferred);
  uint32_t flags();
  const int32_t *blockSize(int32_t m, int32_t k);
  const float *scalar();
  /// The output a per-token or per-block cast writes for `fmt`.
  tk_tensor *castOut(tk_format f);
};

/// Decodes one entry point's arguments (allocating and filling the tensors)
/// around the drawn sizes, each most often as the entry point's contract in
/// tk.h asks; the call itself is the returned closure. `entry` gets which
/// entry point (0 to kNumEntryPoints - 1: tk.h's order up to 31, then the entry points added since, so that
/// the regression inputs keep their meaning).
std::function<tk_status()> decode(Call &c, int &entry);

/// The entry point's name, for messages.
const char *entryName(int entry);

} // namespace tk::fuzz
