// A bundle that `tk bundle --all` made (tests/bundle/run.sh passes its
// directory) names every registered variant's kernel for this binary too: the
// disk index keys a program by its stable name and the sources' hash, not
// by the binary that holds it. Each lookup reads the index and the PTX and
// runs no DSL program. Skips visibly when run alone.
#include "kernels/registry.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/runtime/JitCache.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace {

TEST(BundleIndex, AnotherBinaryFindsEveryVariantByName) {
  const char *dir = std::getenv("TK_TEST_BUNDLE");
  if (!dir)
    GTEST_SKIP() << "skipped: tests/bundle/run.sh runs this with a bundle `tk bundle` made";
  setenv("TK_CACHE_DIR", dir, 1);
  tk::runtime::JitCache cache;
  int found = 0;
  for (const char *targetName : {"sm_90a", "sm_80"}) {
    const tk::compiler::Target target = *tk::compiler::findTarget(targetName);
    for (const auto &k : tk::kernels::shippedKernels())
      for (const auto &v : k.variants) {
        std::shared_ptr<tk::runtime::CompiledKernel> out;
        ASSERT_TRUE(cache.get(v.build, target, nullptr, out).isOk()) << v.name;
        EXPECT_TRUE(out->fromIndex) << v.name << " (" << targetName << ") was built, not found in the bundle's index";
        EXPECT_FALSE(out->ptx.empty()) << v.name;
        found += out->fromIndex;
      }
  }
  std::printf("%d variants found through the bundle's index\n", found);
  EXPECT_GT(found, 100);
  unsetenv("TK_CACHE_DIR");
}

} // namespace
