// The proof by exhaustion behind tile-logistic-quotients: for every one of the
// 2^32 f32 values x, the branch-free quotients x / (1 + exp(-x)) and
// 1 / (1 + exp(-x)) equal div.rn.f32's bit for bit (NaN where it is NaN),
// and so does a lone x / (1 + exp(-x)) (the sequence under a range check
// per thread). Each kernel is compiled twice, as shipped and with
// TK_ABLATE=logistic-division (IEEE division), and both run over the same
// inputs. Skips visibly without a device.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/logistic_quotients.h"

#include "tk/runtime/JitCache.h"
#include "tk/runtime/Launcher.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

using namespace tk;
using namespace tk::test_kernels;

/// The kernel compiled for the device, with TK_ABLATE set to `ablate` meanwhile.
runtime::Status compileAndLoad(const runtime::KernelFactory &factory, const runtime::Driver &driver,
                               const compiler::Target &target, const char *ablate, runtime::CompiledKernel &k) {
  const char *before = std::getenv("TK_ABLATE");
  std::optional<std::string> saved = before ? std::optional<std::string>(before) : std::nullopt;
  setenv("TK_ABLATE", ablate, 1);
  runtime::Status s = runtime::compileKernel(factory, target, k);
  if (saved)
    setenv("TK_ABLATE", saved->c_str(), 1);
  else
    unsetenv("TK_ABLATE");
  if (!s.isOk())
    return s;
  return runtime::loadModule(driver, k);
}

class LogisticDivisionGpu : public GpuSuite<LogisticDivisionGpu> {};

/// Runs `factory` (outputs: x / (1 + exp(-x)), then 1 / (1 + exp(-x)) or x
/// itself) as shipped and with the pass ablated over all 2^32 inputs and
/// compares the outputs; `quotients` of them are quotients.
void checkEveryInput(checks::GpuSession *session, const runtime::KernelFactory &factory, int quotients,
                     const std::string &what) {
  const runtime::DeviceInfo &dev = session->device();
  std::optional<compiler::Target> target = compiler::targetForDevice(dev.ccMajor, dev.ccMinor);
  ASSERT_TRUE(target) << "no target for this device";
  runtime::CompiledKernel fast, ieee;
  runtime::Status s = compileAndLoad(factory, session->driver(), *target, "", fast);
  ASSERT_TRUE(s.isOk()) << s.message();
  s = compileAndLoad(factory, session->driver(), *target, "logistic-division", ieee);
  ASSERT_TRUE(s.isOk()) << s.message();
  // Each form is what it claims: the sequence (rcp.approx) in one, IEEE
  // division only in the other; with a shared divisor no div.rn.f32 at all.
  EXPECT_NE(fast.ptx.find("rcp.approx.ftz.f32"), std::string::npos);
  if (quotients == 2)
    EXPECT_EQ(fast.ptx.find("div.rn.f32"), std::string::npos);
  EXPECT_NE(ieee.ptx.find("div.rn.f32"), std::string::npos);
  EXPECT_EQ(ieee.ptx.find("rcp.approx"), std::string::npos);

  constexpr uint64_t kChunk = uint64_t(1) << 28; // values per launch (1 GiB of f32)
  const int64_t rows = int64_t(kChunk / kCols);
  const size_t bytes = kChunk * 4;
  void *x = session->alloc(bytes);
  void *out[4] = {session->alloc(bytes), session->alloc(bytes), session->alloc(bytes), session->alloc(bytes)};
  std::vector<uint32_t> hostX(kChunk);
  std::vector<std::vector<uint32_t>> host(4, std::vector<uint32_t>(kChunk));
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<uint64_t> mismatches{0}, nans{0};
  std::atomic<int> printed{0};
  for (uint64_t base = 0; base < (uint64_t(1) << 32); base += kChunk) {
    for (uint64_t i = 0; i < kChunk; ++i)
      hostX[i] = uint32_t(base + i);
    session->upload(x, hostX.data(), bytes);
    tk_tensor tx = checks::deviceTensor(x, TK_F32, {rows, kCols});
    tk_tensor t[4];
    for (int i = 0; i < 4; ++i)
      t[i] = checks::deviceTensor(out[i], TK_F32, {rows, kCols});
    s = runtime::launch(session->driver(), fast, {&tx, &t[0], &t[1]}, nullptr, dev.smCount);
    ASSERT_TRUE(s.isOk()) << s.message();
    s = runtime::launch(session->driver(), ieee, {&tx, &t[2], &t[3]}, nullptr, dev.smCount);
    ASSERT_TRUE(s.isOk()) << s.message();
    session->synchronize();
    for (int i = 0; i < 4; ++i)
      session->download(host[i].data(), out[i], bytes);
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
      pool.emplace_back([&, w] {
        auto isNan = [](uint32_t v) { return (v & 0x7FFFFFFFu) > 0x7F800000u; };
        for (uint64_t i = w; i < kChunk; i += workers)
          for (int q = 0; q < quotients; ++q) {
            uint32_t a = host[q][i], b = host[q + 2][i];
            if (isNan(a) && isNan(b)) {
              ++nans;
              continue;
            }
            if (a != b && ++mismatches && printed++ < 10)
              ADD_FAILURE() << (q ? "1" : "x") << " / (1 + exp(-x)) for x bits 0x" << std::hex << hostX[i]
                            << ": 0x" << a << ", div.rn.f32 0x" << b;
          }
      });
    for (std::thread &th : pool)
      th.join();
  }
  EXPECT_EQ(mismatches.load(), 0u);
  // NaN exactly where IEEE says so: both quotients for the 2^24 - 2 NaN inputs,
  // and x / (1 + exp(-x)) at x = -inf (-inf / inf; 1 / inf is 0).
  EXPECT_EQ(nans.load(), quotients * ((uint64_t(1) << 24) - 2) + 1);
  std::printf("[ %s ] %llu of 2^32 inputs x %d quotients bit-identical to div.rn.f32 on %s\n", what.c_str(),
              (unsigned long long)(uint64_t(quotients) * (uint64_t(1) << 32) - mismatches.load()), quotients,
              dev.name.c_str());
}

TEST_F(LogisticDivisionGpu, EveryF32InputMatchesIeeeDivision) {
  checkEveryInput(session, logisticQuotients, 2, "logistic division");
}

// A lone SiLU: the sequence when all of a thread's |x| <= 80, else div.rn.f32.
TEST_F(LogisticDivisionGpu, SiluAloneMatchesIeeeDivision) {
  checkEveryInput(session, siluAlone, 1, "logistic division, SiLU alone");
}

} // namespace
