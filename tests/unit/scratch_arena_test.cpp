// The scratch arena's bookkeeping (runtime/ScratchArena.h) against a driver
// of stubs that records what the arena asks of it: which block a request
// gets, when a stream is made to wait, and that blocks are only allocated
// when no free one fits. (The GPU test ScratchArenaGpu runs it on a device.)
#include "tk/runtime/ScratchArena.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using tk::runtime::CUdeviceptr;
using tk::runtime::CUevent;
using tk::runtime::CUresult;
using tk::runtime::CUstream;
using tk::runtime::ScratchArena;

struct Calls {
  CUdeviceptr next = 0x10000;
  int allocs = 0, frees = 0, events = 0, records = 0, syncs = 0;
  bool failAlloc = false;
  std::vector<std::pair<CUstream, CUevent>> waits;
};
Calls calls;

CUresult memAlloc(CUdeviceptr *p, size_t size) {
  if (calls.failAlloc)
    return 2; // CUDA_ERROR_OUT_OF_MEMORY
  *p = calls.next, calls.next += size, ++calls.allocs;
  return 0;
}
CUresult memFree(CUdeviceptr) { return ++calls.frees, 0; }
CUresult eventCreate(CUevent *e, unsigned) {
  *e = reinterpret_cast<CUevent>(uintptr_t(++calls.events));
  return 0;
}
CUresult eventRecord(CUevent, CUstream) { return ++calls.records, 0; }
CUresult eventSynchronize(CUevent) { return ++calls.syncs, 0; }
CUresult eventDestroy(CUevent) { return 0; }
CUresult streamWaitEvent(CUstream s, CUevent e, unsigned) {
  calls.waits.push_back({s, e});
  return 0;
}
CUresult errorString(CUresult, const char **s) { return *s = "stub error", 0; }

tk::runtime::Driver stubs() {
  tk::runtime::Driver d{};
  d.cuMemAlloc = memAlloc, d.cuMemFree = memFree, d.cuEventCreate = eventCreate, d.cuEventRecord = eventRecord;
  d.cuEventSynchronize = eventSynchronize, d.cuEventDestroy = eventDestroy, d.cuStreamWaitEvent = streamWaitEvent;
  d.cuGetErrorString = errorString;
  return d;
}

CUstream stream(int i) { return reinterpret_cast<CUstream>(uintptr_t(0x100 * i)); }

/// A fresh record of calls, the stub driver and an empty arena per test.
class ScratchArenaStubs : public ::testing::Test {
protected:
  void SetUp() override { calls = {}; }
  const tk::runtime::Driver d = stubs();
  ScratchArena arena;
};

TEST_F(ScratchArenaStubs, ReusesTheSmallestFreeBlockAndWaitsForItsLastUser) {
  ScratchArena::Block *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_TRUE(arena.acquire(d, 100, stream(1), a).isOk());
  ASSERT_TRUE(arena.acquire(d, 300 << 10, stream(1), b).isOk());
  EXPECT_EQ(a->size, 64u << 10) << "sizes are powers of two from 64 KiB";
  EXPECT_EQ(b->size, 512u << 10);
  EXPECT_EQ(calls.allocs, 2) << "two buffers held at once are two blocks";
  EXPECT_TRUE(calls.waits.empty()) << "a new block has no earlier user";
  arena.release(d, a, stream(1));
  arena.release(d, b, stream(1));
  EXPECT_EQ(calls.records, 2);
  ASSERT_TRUE(arena.acquire(d, 1000, stream(2), c).isOk());
  EXPECT_EQ(c, a) << "the smallest free block that fits";
  ASSERT_EQ(calls.waits.size(), 1u);
  EXPECT_EQ(calls.waits[0].first, stream(2));
  EXPECT_EQ(calls.waits[0].second, a->released) << "stream 2 waits for stream 1's last use of the block";
  EXPECT_EQ(calls.allocs, 2);
  arena.release(d, c, stream(2));
  arena.destroy(d);
  EXPECT_EQ(calls.frees, 2);
  EXPECT_EQ(calls.syncs, 2) << "each block's last use is waited for before its memory goes";
  EXPECT_EQ(arena.blocks(), 0u);
}

TEST_F(ScratchArenaStubs, PrefersABlockLastUsedOnTheSameStream) {
  ScratchArena::Block *small = nullptr, *large = nullptr, *got = nullptr;
  ASSERT_TRUE(arena.acquire(d, 100, stream(1), small).isOk());
  ASSERT_TRUE(arena.acquire(d, 100 << 10, stream(2), large).isOk());
  arena.release(d, small, stream(1));
  arena.release(d, large, stream(2));
  ASSERT_TRUE(arena.acquire(d, 100, stream(2), got).isOk());
  EXPECT_EQ(got, large) << "no wait on another stream's work when this stream's own block fits";
  arena.release(d, got, stream(2));
  arena.destroy(d);
}

TEST_F(ScratchArenaStubs, AFailedAllocationIsAnErrorAndKeepsNothing) {
  ScratchArena::Block *got = nullptr;
  calls.failAlloc = true;
  tk::runtime::Status s = arena.acquire(d, 100, stream(1), got);
  EXPECT_EQ(s.code(), TK_ERROR_LAUNCH);
  EXPECT_NE(s.message().find("cuMemAlloc"), std::string::npos) << s.message();
  EXPECT_EQ(arena.blocks(), 0u);
}

} // namespace
