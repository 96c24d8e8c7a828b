//===- KernelAttrs.cpp - the attributes a kernel declares -----------------===//
//
// A kernel's schedule (#tile.schedule: its code-shape choices) and the
// promises the launcher makes about its arguments (tile.align,
// tile.dim_multiples). Both are verified here, so that a pass reading them
// can trust them.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tk::tile;

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t maxAccessBytes,
                                   int64_t vectorElements, int64_t transposeRows, bool, int64_t minBlocksPerSm, bool,
                                   bool, int64_t dependentLaunch) {
  if (maxAccessBytes != 0 && maxAccessBytes != 4 && maxAccessBytes != 8 && maxAccessBytes != 16)
    return emitError() << "schedule: max_access_bytes must be 4, 8 or 16 (0: the target's), got " << maxAccessBytes;
  if (vectorElements < 0 || vectorElements > 64 ||
      (vectorElements != 0 && !llvm::isPowerOf2_64(vectorElements) && vectorElements % 8))
    return emitError() << "schedule: vector_elements must be a power of two or a multiple of 8 from 1 to 64 (0: "
                          "derived), got "
                       << vectorElements;
  if (transposeRows != 0 && transposeRows != 4 && transposeRows != 8 && transposeRows != 16)
    return emitError() << "schedule: transpose_rows must be 4, 8 or 16 (0: 4), got " << transposeRows;
  if (minBlocksPerSm < 0 || minBlocksPerSm > 32)
    return emitError() << "schedule: min_blocks_per_sm must be 0 to 32 (0: none), got " << minBlocksPerSm;
  if (dependentLaunch < 0 || dependentLaunch > 2)
    return emitError() << "schedule: dependent_launch must be 0 (none), 1 (signal at the start) or 2 (at the end), got "
                       << dependentLaunch;
  return success();
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op, unsigned region, unsigned argIndex,
                                                    NamedAttribute attr) {
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel)
    return op->emitOpError() << "'" << attr.getName().getValue() << "' belongs on tile.kernel arguments";
  Type type = kernel.getArgumentTypes()[argIndex];
  auto mem = dyn_cast<MemRefType>(type);
  StringRef name = attr.getName().getValue();
  if (name == "tile.align") {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!mem || !bytes || bytes.getInt() < 1 || !llvm::isPowerOf2_64(bytes.getInt()))
      return kernel.emitOpError() << "argument " << argIndex
                                  << ": tile.align must be a power-of-two byte count on a memref, got "
                                  << attr.getValue() << " for " << type;
    return success();
  }
  if (name == "tile.dim_multiples") {
    auto multiples = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!multiples || !mem || multiples.size() != mem.getRank() ||
        llvm::any_of(multiples.asArrayRef(), [](int64_t m) { return m < 1; }))
      return kernel.emitOpError() << "argument " << argIndex
                                  << ": tile.dim_multiples must be an array<i64> of one positive multiple per "
                                     "dimension of a memref, got "
                                  << attr.getValue() << " for " << type;
    return success();
  }
  return kernel.emitOpError() << "argument " << argIndex << ": unknown attribute '" << name
                              << "' (tile.align, tile.dim_multiples)";
}
