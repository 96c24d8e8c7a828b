// No shipped kernel leaves half its threads or more idle because its vectors
// are wider than its tiles allow: on every target, along every dimension of
// each blocked layout tile-assign-layouts gives, at least half the threads
// have a vector of the fragment to hold (five kernels once had half
// their threads idle on sm_100a, whose 32-byte vectors the tiles were not
// sized for). The 576-channel rows (576 = 72 vectors of 8) are the known
// exception: no vector width fills 128 threads there. A fragment of fewer
// elements than the CTA has threads (top2_sum_gate's 8 group keys of a
// token, relaid out to be scattered) is not counted: no vector fills them;
// nor one of fewer than 16 bytes per thread (expand_to_fused's merged
// kernel's [8, 56] i32 scale factors beside its data rows): no 16-byte
// vector does, and the bug this guards (vectors too wide where narrower
// ones of 16 bytes would fill) needs at least that many.
#include "kernels/registry.h"
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Layout/LayoutAttrs.h"
#include "tk/compiler/Registration.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

using namespace tk;

/// "kernel: layout" for each fragment of `module` whose layout places half
/// its threads or more past the fragment's shape along some dimension.
std::set<std::string> idleThreadLayouts(mlir::ModuleOp module, const std::string &kernel) {
  std::set<std::string> found;
  module.walk([&](mlir::Operation *op) {
    for (mlir::Value v : op->getResults()) {
      auto frag = mlir::dyn_cast<tile::FragmentType>(v.getType());
      auto blocked = frag ? mlir::dyn_cast_or_null<tile::BlockedLayoutAttr>(frag.getLayout()) : nullptr;
      if (!blocked)
        continue;
      compiler::BlockedLayout l = compiler::toBlockedLayout(blocked, frag.getShape());
      int64_t threads = 1;
      for (int64_t d = 0; d < l.rank(); ++d)
        threads *= l.lanes[d] * l.warps[d];
      const int64_t bytes = frag.getNumElements() * ((frag.getElementType().getIntOrFloatBitWidth() + 7) / 8);
      if (frag.getNumElements() < threads || bytes < 16 * threads)
        continue;
      for (int64_t d = 0; d < l.rank(); ++d)
        if (2 * ((l.shape[d] + l.vec[d] - 1) / l.vec[d]) <= l.lanes[d] * l.warps[d]) {
          found.insert(kernel + ": " + l.str());
          break;
        }
    }
  });
  return found;
}

TEST(IdleThreads, ShippedKernelsFillTheirThreadsOnEveryTarget) {
  mlir::DialectRegistry registry;
  compiler::registerDialects(registry);
  for (const char *name : {"sm_80", "sm_90a", "sm_100a"}) {
    compiler::Target target = *compiler::findTarget(name);
    for (const auto &k : kernels::shippedKernels())
      for (const auto &variant : k.variants) {
        mlir::MLIRContext ctx(registry);
        ctx.loadAllAvailableDialects();
        compiler::BuiltKernel built = variant.build.build(ctx, target);
        mlir::PassManager pm(&ctx);
        // As the target's pipeline runs them: pipelines become loops before the layouts are assigned.
        pm.addPass(tile::createTilePipelineCopies());
        tile::TileAssignLayoutsOptions layouts;
        layouts.vectorBytes = target.vectorBytes;
        pm.addPass(tile::createTileAssignLayouts(layouts));
        ASSERT_TRUE(mlir::succeeded(pm.run(*built.module))) << variant.name << " on " << name;
        for (const std::string &idle : idleThreadLayouts(*built.module, variant.name))
          EXPECT_NE(variant.name.find("k576"), std::string::npos) << name << ": " << idle;
      }
  }
}

} // namespace
