//===- TileTypes.cpp - fragment type and layout attributes ----------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tk::tile;

//===----------------------------------------------------------------------===//
// BlockedLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                        ArrayRef<int64_t> vec, ArrayRef<int64_t> lanes,
                                        ArrayRef<int64_t> warps) {
  if (vec.size() != lanes.size() || vec.size() != warps.size() || vec.empty())
    return emitError() << "blocked layout needs vec, lanes and warps of one non-zero rank, got "
                       << vec.size() << ", " << lanes.size() << " and " << warps.size();
  int64_t laneProduct = 1;
  for (auto [name, list] : {std::pair{"vec", vec}, std::pair{"lanes", lanes}, std::pair{"warps", warps}})
    for (int64_t v : list)
      if (v <= 0 || !llvm::isPowerOf2_64(v))
        return emitError() << "blocked layout " << name << " entries must be powers of two, got " << v;
  for (int64_t l : lanes)
    laneProduct *= l;
  if (laneProduct != 32)
    return emitError() << "blocked layout lanes must multiply to the warp size 32, got " << laneProduct;
  return success();
}

//===----------------------------------------------------------------------===//
// FragmentType
//===----------------------------------------------------------------------===//

int64_t FragmentType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}

LogicalResult FragmentType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<int64_t> shape, Type elementType, Attribute layout) {
  if (shape.empty())
    return emitError() << "fragment must have rank >= 1";
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d <= 0)
      return emitError() << "fragment dimensions must be static and positive, got " << d;
    if (__builtin_mul_overflow(elements, d, &elements) || elements > FragmentType::kMaxElements)
      return emitError() << "fragment of more than " << FragmentType::kMaxElements
                         << " elements: a fragment is split over one block's threads and unrolled into their "
                            "registers, so tk compiles none larger";
  }
  if (!elementType.isIntOrFloat())
    return emitError() << "fragment element type must be an integer or float, got " << elementType;
  if (!layout)
    return success();
  if (auto blocked = llvm::dyn_cast<BlockedLayoutAttr>(layout)) {
    if (blocked.getVec().size() != shape.size())
      return emitError() << "blocked layout of rank " << blocked.getVec().size()
                         << " does not match fragment rank " << shape.size();
    return success();
  }
  if (auto reduced = llvm::dyn_cast<ReducedLayoutAttr>(layout)) {
    if (reduced.getDim() < 0 || reduced.getDim() >= (int64_t)shape.size())
      return emitError() << "reduced layout dim " << reduced.getDim() << " out of range";
    auto inner = llvm::dyn_cast<ReducedLayoutAttr>(reduced.getParent());
    if (inner) {
      if (inner.getDim() == reduced.getDim())
        return emitError() << "a reduced layout of a reduced layout must reduce another dimension, both reduce "
                           << reduced.getDim();
      if (llvm::isa<ReducedLayoutAttr>(inner.getParent()))
        return emitError() << "reduced layouts nest two levels deep at most";
    }
    auto root = llvm::dyn_cast<BlockedLayoutAttr>(inner ? inner.getParent() : reduced.getParent());
    if (!root)
      return emitError() << "a reduced layout's parent must be blocked or reduced, got " << reduced.getParent();
    if (root.getVec().size() != shape.size())
      return emitError() << "reduced layout's parent rank does not match fragment rank " << shape.size();
    return success();
  }
  return emitError() << "unsupported fragment layout " << layout;
}

Type FragmentType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute layout;
  if (parser.parseLess() || parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(layout))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<FragmentType>(parser.getContext(), ArrayRef<int64_t>(shape), elementType, layout);
}

void FragmentType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType();
  if (getLayout())
    printer << ", " << getLayout();
  printer << ">";
}
