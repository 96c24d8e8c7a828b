//===- DynamicSharedMemory.cpp - shared buffers past 48 KB -----------------===//
//
// ptxas refuses more than 48 KB of static shared memory per kernel; larger
// blocks must take dynamic shared memory, sized at launch. Kernels within
// 48 KB keep their static buffers (and their PTX); larger ones get each
// buffer as a view of the block's dynamic shared memory, and the module
// records the total, which the runtime needs to raise the kernel's limit and
// to launch it.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEDYNAMICSHAREDMEMORY
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;

namespace tk::compiler {
namespace {

/// Where each workgroup attribution of `func` starts in one block of shared
/// memory, and the block's size.
struct SharedPlan {
  SmallVector<int64_t> offsets;
  int64_t total = 0;
};

/// "f32 [96, 256]": a buffer, for the notes that name each one.
std::string describe(MemRefType type) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << type.getElementType() << " [";
  llvm::interleaveComma(type.getShape(), os);
  os << "]";
  return out;
}

SharedPlan planShared(gpu::GPUFuncOp func, const DataLayout &layout) {
  SharedPlan plan;
  for (auto [i, buf] : llvm::enumerate(func.getWorkgroupAttributions())) {
    auto type = cast<MemRefType>(buf.getType());
    uint64_t align = 16;
    if (auto a = dyn_cast_or_null<IntegerAttr>(func.getWorkgroupAttributionAttr(i, "llvm.align")))
      align = std::max<uint64_t>(align, a.getInt());
    plan.total = llvm::alignTo(plan.total, align);
    plan.offsets.push_back(plan.total);
    plan.total += type.getNumElements() * (int64_t)layout.getTypeSize(type.getElementType());
  }
  return plan;
}

/// The module's dynamic shared memory: an external declaration of a
/// zero-length workgroup array (PTX `.extern .shared .align 16 .b8 x[]`).
/// Upstream's gpu.dynamic_shared_memory would declare it with internal
/// linkage, which NVPTX demotes to a one-byte static variable of the kernel
/// (llvm-project issue 72513), so tk declares its own.
memref::GlobalOp dynamicSharedGlobal(gpu::GPUModuleOp module, MemRefType type) {
  constexpr const char *kName = "__tk_dynamic_shared";
  if (auto existing = module.lookupSymbol<memref::GlobalOp>(kName))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  return memref::GlobalOp::create(b, module.getLoc(), kName, b.getStringAttr("public"), type, Attribute(),
                                  /*constant=*/false, b.getI64IntegerAttr(16));
}

/// Replaces `func`'s workgroup attributions with views of its dynamic shared memory.
void useDynamicShared(gpu::GPUFuncOp func, const SharedPlan &plan) {
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  auto workgroup = gpu::AddressSpaceAttr::get(func.getContext(), gpu::AddressSpace::Workgroup);
  auto none = MemRefType::get({0}, b.getI8Type(), MemRefLayoutAttrInterface{}, workgroup);
  auto bytes = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), MemRefLayoutAttrInterface{}, workgroup);
  memref::GlobalOp global = dynamicSharedGlobal(func->getParentOfType<gpu::GPUModuleOp>(), none);
  Value base = memref::CastOp::create(b, loc, bytes, memref::GetGlobalOp::create(b, loc, none, global.getSymName()));
  for (auto [attribution, offset] : llvm::zip_equal(func.getWorkgroupAttributions(), plan.offsets)) {
    BlockArgument buf = attribution;
    Value at = arith::ConstantIndexOp::create(b, buf.getLoc(), offset);
    buf.replaceAllUsesWith(memref::ViewOp::create(b, buf.getLoc(), buf.getType(), base, at, ValueRange{}));
  }
  // GPUFuncOp has no call to drop attributions: the block arguments go, then
  // the count and the per-attribution attributes that describe them.
  entry.eraseArguments(func.getFirstWorkgroupAttributionIndex(), func.getNumWorkgroupAttributions());
  func->removeAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName());
  func.removeWorkgroupAttribAttrsAttr();
}

struct TileDynamicSharedMemoryPass
    : tile::impl::TileDynamicSharedMemoryBase<TileDynamicSharedMemoryPass> {
  using TileDynamicSharedMemoryBase::TileDynamicSharedMemoryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    DataLayout layout(module);
    SmallVector<NamedAttribute> recorded;
    WalkResult walk = module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel() || func.getNumWorkgroupAttributions() == 0)
        return WalkResult::advance();
      SharedPlan plan = planShared(func, layout);
      if (maxBytes > 0 && plan.total > maxBytes) {
        // mlir::emitError, not func.emitError: the latter would print the whole kernel.
        InFlightDiagnostic diag = emitError(func.getLoc())
                                  << "kernel '" << func.getName() << "' needs " << plan.total
                                  << " bytes of shared memory per block; " << targetName << " allows at most "
                                  << int64_t(maxBytes) << " (use smaller tiles or fewer pipeline stages)";
        for (BlockArgument buf : func.getWorkgroupAttributions())
          diag.attachNote(buf.getLoc()) << "a buffer of " << describe(cast<MemRefType>(buf.getType())) << " here";
        return WalkResult::interrupt();
      }
      if (plan.total <= staticBytes)
        return WalkResult::advance();
      useDynamicShared(func, plan);
      recorded.push_back(NamedAttribute(func.getNameAttr(), IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                                                             plan.total)));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (!recorded.empty())
      module->setAttr("tk.dynamic_shared_memory", DictionaryAttr::get(&getContext(), recorded));
  }
};

} // namespace
} // namespace tk::compiler
