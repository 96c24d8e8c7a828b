// Another binary than the `tk` that made a bundle: finds every registered
// variant's kernel, for sm_90a and sm_80, through the bundle's disk index by
// its program's stable name (no DSL program runs), or says which it missed.
//   tk_bundle_reader DIR
#include "kernels/registry.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/runtime/JitCache.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tk_bundle_reader DIR\n");
    return 2;
  }
  setenv("TK_CACHE_DIR", argv[1], 1);
  tk::runtime::JitCache cache;
  int found = 0, missed = 0;
  for (const char *targetName : {"sm_90a", "sm_80"}) {
    const tk::compiler::Target target = *tk::compiler::findTarget(targetName);
    for (const auto &k : tk::kernels::shippedKernels())
      for (const auto &v : k.variants) {
        if (!v.fits(target)) // tk bundle leaves it out (its shared memory past the target's)
          continue;
        std::shared_ptr<tk::runtime::CompiledKernel> out;
        tk::runtime::Status s = cache.get(v.build, target, nullptr, out);
        if (s.isOk() && out->fromIndex && !out->ptx.empty()) {
          ++found;
          continue;
        }
        ++missed;
        std::printf("MISSED %s (%s): %s\n", v.name.c_str(), targetName,
                    s.isOk() ? "built, not found in the bundle's index" : s.message().c_str());
      }
  }
  std::printf("%d variants found through the bundle's index, %d missed\n", found, missed);
  return missed == 0 && found > 100 ? 0 : 1;
}
