// Every entry point, through the fuzz harness's decoding (tests/fuzz/
// capi_calls.h) with chosen bytes: an input of zeros is each entry point's
// default call (64 x 256, host tensors), which succeeds; then each of its
// tensors in turn, the last one included, is made invalid (unknown dtype, a
// wrong last dimension, a misaligned pointer, or placed on the CUDA device
// while the others are in host memory), and the call must fail with
// TK_ERROR_INVALID_ARGUMENT without changing a byte of any tensor, however
// late the check comes (mixed places are an argument error, not a missing
// driver, wherever scratch memory would be allocated).
#include "tests/fuzz/capi_calls.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace tk::fuzz;

/// An input selecting `entry` with every other choice the first (zeros).
std::vector<uint8_t> defaultCall(int entry) {
  std::vector<uint8_t> bytes(512, 0);
  bytes[3] = (uint8_t)entry; // after the two sizes and the context
  return bytes;
}

TEST(LateFailure, EveryEntryPointsDefaultCallSucceeds) {
  for (int e = 0; e < kNumEntryPoints; ++e) {
    std::vector<uint8_t> bytes = defaultCall(e);
    Call c(bytes.data(), bytes.size());
    int entry = -1;
    auto call = decode(c, entry);
    ASSERT_EQ(entry, e);
    EXPECT_EQ(call(), TK_SUCCESS) << entryName(e) << ": " << tk_last_error();
    EXPECT_TRUE(c.tensors.intact()) << entryName(e);
  }
}

TEST(LateFailure, AnyInvalidTensorFailsAndWritesNothing) {
  using Corruption = Tensors::Corruption;
  int calls = 0;
  for (int e = 0; e < kNumEntryPoints; ++e) {
    std::vector<uint8_t> bytes = defaultCall(e);
    int tensors = 0;
    {
      Call c(bytes.data(), bytes.size());
      int entry;
      decode(c, entry);
      tensors = c.tensors.drawn();
    }
    ASSERT_GE(tensors, 1) << entryName(e);
    for (int i = 0; i < tensors; ++i)
      for (Corruption what : {Corruption::Dtype, Corruption::Shape, Corruption::Misalign, Corruption::Device}) {
        // One tensor moved to the device is not a mix of places: a call of
        // one tensor then runs on the GPU (or finds no driver), rightly.
        if (what == Corruption::Device && tensors == 1)
          continue;
        Call c(bytes.data(), bytes.size());
        c.tensors.corrupt(i, what);
        int entry;
        auto call = decode(c, entry);
        const std::vector<uint64_t> before = c.tensors.digests();
        const tk_status s = call();
        const std::string where = std::string(entryName(e)) + " tensor " + std::to_string(i) + " of " +
                                  std::to_string(tensors) + " corruption " + std::to_string((int)what);
        // A one-byte tensor cannot be misaligned; a free last dimension
        // (one no other argument pins) changed is another valid call.
        const bool stillValid = what == Corruption::Shape && i == c.freeLastDimension;
        if (what != Corruption::Misalign && !stillValid)
          EXPECT_NE(s, TK_SUCCESS) << where;
        if (s != TK_SUCCESS) {
          EXPECT_EQ(s, TK_ERROR_INVALID_ARGUMENT) << where << ": " << tk_last_error();
          EXPECT_EQ(c.tensors.digests(), before) << where << ": " << tk_last_error();
        }
        EXPECT_TRUE(c.tensors.intact()) << where;
        ++calls;
      }
  }
  std::printf("[ late failures ] %d calls\n", calls);
}

} // namespace
