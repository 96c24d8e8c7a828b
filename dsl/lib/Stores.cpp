//===- Stores.cpp - tiles written to tensors: whole, padded, masked -------===//
#include "IndexValues.h"
#include "tk/dsl/KernelBuilder.h"

#include "tk/compiler/Dialect/Tile/Tile.h"

#include <stdexcept>
#include <string>

using namespace mlir;

namespace tk::dsl {

void KernelBuilder::refuseCutStore(const Tensor &t, const std::vector<int64_t> &shape) const {
  const TensorParam &param = t.param();
  if (paddedStores_ || shape.size() != param.shape.size())
    return;
  for (size_t d = 0; d < shape.size(); ++d)
    if (param.shape[d].isStatic() && shape[d] > param.shape[d].staticValue())
      throw std::invalid_argument(errorPrefix() + "store of a " + shapeString(shape) + " tile into '" + param.name +
                                  "', whose dimension " + std::to_string(d) + " is " +
                                  std::to_string(param.shape[d].staticValue()) +
                                  ": the tile is wider than the tensor and would be cut");
}

void KernelBuilder::store(const Tensor &t, const std::vector<Index> &origin, const Tile &value, int64_t splitLast,
                          SourceLine where) {
  AtLine at(*this, where);
  if (!splitLast)
    refuseCutStore(t, value.shape());
  auto op = tile::StoreOp::create(b_, loc_, value.value(), t.value(), values(origin), /*split_last=*/nullptr,
                                  /*atomic_add=*/false, /*mask=*/Value());
  if (splitLast)
    op.setSplitLastAttr(b_.getI64IntegerAttr(splitLast));
}

void KernelBuilder::storeWhere(const Tensor &t, const std::vector<Index> &origin, const Tile &value, const Tile &mask,
                               SourceLine where) {
  AtLine at(*this, where);
  if (isFloat(mask.dtype()))
    throw std::invalid_argument(errorPrefix() + "storeWhere into '" + t.param().name +
                                "': the mask holds integers (nonzero: write), got " + name(mask.dtype()));
  if (mask.shape() != value.shape())
    throw std::invalid_argument(errorPrefix() + "storeWhere into '" + t.param().name + "': the mask is " +
                                shapeString(mask.shape()) + " but the value tile is " + shapeString(value.shape()));
  refuseCutStore(t, value.shape());
  tile::StoreOp::create(b_, loc_, value.value(), t.value(), values(origin), /*split_last=*/nullptr,
                        /*atomic_add=*/false, mask.value());
}

void KernelBuilder::storePadded(const Tensor &t, const std::vector<Index> &origin, const Tile &value,
                                SourceLine where) {
  AtLine at(*this, where);
  tile::StoreOp::create(b_, loc_, value.value(), t.value(), values(origin), /*split_last=*/nullptr,
                        /*atomic_add=*/false, /*mask=*/Value());
}

} // namespace tk::dsl
