// The context's scratch blocks (runtime/ScratchArena.h): a block given back
// is taken again (the smallest free one that fits), buffers held at once are
// separate blocks, and a block is kept until the context goes.
#include "tests/kernels/gpu_suite.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Scratch.h"

#include <cstdint>
#include <cstring>

namespace {

class ScratchArenaGpu : public GpuSuite<ScratchArenaGpu> {};

TEST_F(ScratchArenaGpu, BlocksAreReusedInStreamOrder) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS) << tk_last_error();
  ASSERT_TRUE(ctx->ensureDevice().isOk());
  tk_tensor like{};
  like.device = TK_DEVICE_CUDA;
  void *small = nullptr, *large = nullptr;
  {
    tk::runtime::Scratch a, b;
    ASSERT_TRUE(a.allocateOnStream(ctx, like, 100, nullptr).isOk());
    ASSERT_TRUE(b.allocateOnStream(ctx, like, 200 << 10, nullptr).isOk());
    small = a.tensor(TK_I32, 1, 25).data, large = b.tensor(TK_I32, 1, 25).data;
    EXPECT_NE(small, large);
    EXPECT_EQ(ctx->scratchArena.blocks(), 2u) << "two buffers held at once";
    ASSERT_TRUE(a.zeroOnStream(nullptr).isOk());
  }
  {
    tk::runtime::Scratch c;
    ASSERT_TRUE(c.allocateOnStream(ctx, like, 4000, nullptr).isOk());
    EXPECT_EQ(c.tensor(TK_I32, 1, 1).data, small) << "the smallest free block that fits";
    EXPECT_EQ(ctx->scratchArena.blocks(), 2u);
    // The zeros written in the earlier call's stream order are there: the same memory, after its work.
    ASSERT_TRUE(c.inspect(nullptr, [](const void *p) {
                   uint32_t words[25];
                   std::memcpy(words, p, sizeof(words));
                   for (uint32_t w : words)
                     EXPECT_EQ(w, 0u);
                 }).isOk());
  }
  {
    tk::runtime::Scratch d;
    ASSERT_TRUE(d.allocateOnStream(ctx, like, 1 << 20, nullptr).isOk());
    EXPECT_EQ(ctx->scratchArena.blocks(), 3u) << "no free block of 1 MiB";
  }
  tk_context_destroy(ctx);
}

} // namespace
