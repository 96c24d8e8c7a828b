// The clock `tk bench --first-call` reads: the time inside tk's C entry
// points, counted once when an entry calls another, and grown by a call.
#include "tk/runtime/EntryClock.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace {

TEST(EntryClock, NestedEntriesCountOnce) {
  const double before = tk::runtime::entryMs();
  {
    tk::runtime::EntryTimer outer;
    tk::runtime::EntryTimer inner; // an entry point calling another
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const double spent = tk::runtime::entryMs() - before;
  EXPECT_GE(spent, 50.0);
  EXPECT_LT(spent, 100.0) << "counted twice";
}

TEST(EntryClock, AnEntryPointIsTimed) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::vector<uint16_t> x(64 * 64), out(64 * 64);
  tk_tensor xt{}, ot{};
  xt.data = x.data(), ot.data = out.data();
  xt.dtype = ot.dtype = TK_BF16;
  xt.ndim = ot.ndim = 2;
  xt.device = ot.device = TK_DEVICE_CPU;
  xt.shape[0] = xt.shape[1] = ot.shape[0] = ot.shape[1] = 64;
  xt.strides[0] = ot.strides[0] = 64, xt.strides[1] = ot.strides[1] = 1;
  const double before = tk::runtime::entryMs();
  ASSERT_EQ(tk_transpose(ctx, &xt, &ot, nullptr), TK_SUCCESS) << tk_last_error();
  EXPECT_GT(tk::runtime::entryMs(), before);
  tk_context_destroy(ctx);
}

} // namespace
