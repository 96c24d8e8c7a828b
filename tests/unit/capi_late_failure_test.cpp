// Every entry point, through the fuzz harness's decoding (tests/fuzz/
// capi_calls.h) with chosen bytes: an input of zeros is each entry point's
// default call (64 x 256, host tensors), which succeeds; then each of its
// tensors in turn, the last one included, is made invalid (unknown dtype, a
// wrong last dimension, a misaligned pointer, or placed on the CUDA device
// while the others are in host memory), and the call must fail with
// TK_ERROR_INVALID_ARGUMENT without changing a byte of any tensor, however
// late the check comes (mixed places are an argument error, not a missing
// driver, wherever scratch memory would be allocated). Last, each output is
// laid over each other tensor's bytes in turn, and the call must refuse it
// the same way.
#include "tests/fuzz/capi_calls.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
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

TEST(LateFailure, AnyOutputOverAnotherTensorFailsAndWritesNothing) {
  enum class Where { Start, LastBytes, JustAfter };
  int refused = 0, apart = 0;
  // The default call, and the same with no rows (an entry point with nothing to launch checks them too).
  for (const uint8_t rowsChoice : {uint8_t(0), uint8_t(7)})
    for (int e = 0; e < kNumEntryPoints; ++e) {
      std::vector<uint8_t> bytes = defaultCall(e);
      bytes[0] = rowsChoice;
      std::vector<Tensors::Placed> placed;
      std::vector<tk_dtype> dtypes; // placed's tensors die with the first pass's call
      {
        Call c(bytes.data(), bytes.size());
        int entry;
        decode(c, entry);
        placed = c.tensors.placed();
        for (const Tensors::Placed &p : placed)
          dtypes.push_back(p.tensor ? p.tensor->dtype : TK_BF16);
      }
      int outputs = 0, overlaid = 0;
      for (size_t o = 0; o < placed.size(); ++o) {
        if (!placed[o].output || placed[o].buffer < 0)
          continue;
        ++outputs;
        for (size_t x = 0; x < placed.size(); ++x) {
          if (x == o || placed[x].buffer < 0)
            continue;
          // The later of the two is drawn inside the earlier one's buffer, made large enough: at its start, over
          // its last 16 bytes, or just after it (apart: the call must run).
          const int later = (int)std::max(o, x), earlier = (int)std::min(o, x);
          const size_t laterBytes = placed[later].end - placed[later].begin;
          const size_t earlierBytes = placed[earlier].end - placed[earlier].begin;
          for (Where where : {Where::Start, Where::LastBytes, Where::JustAfter}) {
            const size_t offset = where == Where::Start       ? 0
                                  : where == Where::LastBytes ? (earlierBytes - 1) / 16 * 16
                                                              : (earlierBytes + 15) / 16 * 16;
            Call c(bytes.data(), bytes.size());
            c.tensors.overlay(later, earlier, offset + laterBytes, offset);
            int entry;
            auto call = decode(c, entry);
            if (c.tensors.placed()[later].buffer != c.tensors.placed()[earlier].buffer)
              continue; // not drawn in host memory this time
            // The same call as the first pass drew (the overlay reads no input bytes: an input of zeros decodes
            // the same either way), only placed elsewhere.
            const Tensors::Placed &now = c.tensors.placed()[later];
            ASSERT_EQ(now.end - now.begin, laterBytes) << entryName(e);
            ASSERT_EQ(now.tensor->dtype, dtypes[later]) << entryName(e);
            ++overlaid;
            const std::vector<uint64_t> before = c.tensors.digests();
            const tk_status s = call();
            const std::string what = std::string(entryName(e)) + " (rows choice " + std::to_string(rowsChoice) +
                                     "): output " + std::to_string(o) + " and tensor " + std::to_string(x) +
                                     ", offset " + std::to_string(offset) + ": " + tk_last_error();
            EXPECT_TRUE(c.tensors.intact()) << what;
            if (where == Where::JustAfter) {
              EXPECT_EQ(s, TK_SUCCESS) << what;
              ++apart;
              continue;
            }
            EXPECT_EQ(s, TK_ERROR_INVALID_ARGUMENT) << what;
            // The overlap check's message, or an entry point's own for the same mistake.
            EXPECT_TRUE(std::strstr(tk_last_error(), "share memory") || std::strstr(tk_last_error(), "same buffer"))
                << what;
            EXPECT_EQ(c.tensors.digests(), before) << what;
            ++refused;
          }
        }
      }
      // Every entry point with an output and another tensor in host memory is tried.
      const int buffered = (int)std::count_if(placed.begin(), placed.end(), [](auto &p) { return p.buffer >= 0; });
      if (rowsChoice == 0 && outputs > 0 && buffered > 1)
        EXPECT_GT(overlaid, 0) << entryName(e);
    }
  std::printf("[ overlaid outputs ] %d calls refused, %d apart ran\n", refused, apart);
  EXPECT_GT(refused, 2 * kNumEntryPoints);
}

} // namespace
