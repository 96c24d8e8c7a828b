//===- KernelBuilder.cpp - DSL kernels to tile IR --------------------------===//
#include "tk/dsl/KernelBuilder.h"
#include "IndexValues.h"
#include "WrittenTensors.h"

#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>

using namespace mlir;

namespace tk::dsl {

Type toMlirType(MLIRContext &ctx, DType t) {
  Builder b(&ctx);
  switch (t) {
  case DType::BF16: return b.getBF16Type();
  case DType::F16: return b.getF16Type();
  case DType::F32: return b.getF32Type();
  case DType::F8E4M3: return Float8E4M3FNType::get(&ctx);
  case DType::I8: return b.getIntegerType(8);
  case DType::U8: return b.getIntegerType(8);
  case DType::I32: return b.getI32Type();
  case DType::I64: return b.getI64Type();
  case DType::I16: return b.getIntegerType(16);
  }
  return {};
}

KernelBuilder::KernelBuilder(MLIRContext &ctx, const std::string &name, int64_t threads)
    : ctx_(ctx), b_(&ctx), loc_(NameLoc::get(StringAttr::get(&ctx, name))),
      module_(ModuleOp::create(UnknownLoc::get(&ctx))) {
  ctx.loadDialect<tile::TileDialect, arith::ArithDialect, math::MathDialect, memref::MemRefDialect, scf::SCFDialect>();
  signature_.name = name;
  signature_.threads = threads;
  // tile.kernel's verifier asks too; here is where the author chose the number.
  if (std::string why = tile::threadCountError(threads); !why.empty())
    throw std::invalid_argument("kernel '" + name + "': " + why);
}

void KernelBuilder::requireBeforeGrid(const char *setting) const {
  if (gridBuilt_)
    throw std::logic_error(std::string(setting) + ": call it before grid()");
}

/// `value` if it is one of `allowed`, else invalid_argument naming `setting`.
static int64_t oneOf(const char *setting, int64_t value, std::initializer_list<int64_t> allowed, const char *unit) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end())
    return value;
  std::string list;
  for (int64_t a : allowed)
    list += (list.empty() ? "" : a == *(allowed.end() - 1) ? " or " : ", ") + std::to_string(a);
  throw std::invalid_argument(std::string(setting) + ": " + list + " " + unit + ", got " + std::to_string(value));
}

void KernelBuilder::maxAccessBytes(int64_t bytes) {
  const int64_t checked = oneOf("maxAccessBytes", bytes, {4, 8, 16}, "bytes");
  requireBeforeGrid("maxAccessBytes");
  maxAccessBytes_ = checked;
}

void KernelBuilder::rereadThreadIndexInLoops() {
  requireBeforeGrid("rereadThreadIndexInLoops");
  rereadThreadIndex_ = true;
}

void KernelBuilder::minBlocksPerSm(int64_t blocks) {
  if (blocks < 1 || blocks > 32)
    throw std::invalid_argument("minBlocksPerSm: 1 to 32 blocks, got " + std::to_string(blocks));
  requireBeforeGrid("minBlocksPerSm");
  minBlocksPerSm_ = blocks;
}

void KernelBuilder::readOnlyLoads() {
  requireBeforeGrid("readOnlyLoads");
  readOnlyLoads_ = true;
}

void KernelBuilder::warpsAlongRows() {
  requireBeforeGrid("warpsAlongRows");
  warpsAlongRows_ = true;
}

void KernelBuilder::dependentLaunch(bool signalAtStart) {
  requireBeforeGrid("dependentLaunch");
  dependentLaunch_ = signalAtStart ? 1 : 2;
}

void KernelBuilder::vectorElements(int64_t elements) {
  if (elements < 1 || elements > 64 || ((elements & (elements - 1)) && elements % 8))
    throw std::invalid_argument("vectorElements: a power of two or a multiple of 8 from 1 to 64, got " +
                                std::to_string(elements));
  requireBeforeGrid("vectorElements");
  vectorElements_ = elements;
}

void KernelBuilder::transposeRowsPerThread(int64_t rows) {
  const int64_t checked = oneOf("transposeRowsPerThread", rows, {4, 8, 16}, "rows");
  requireBeforeGrid("transposeRowsPerThread");
  transposeRows_ = checked;
}

Dim KernelBuilder::dynamic(const std::string &name) { return Dim::symbol(name); }

Dim KernelBuilder::dynamic(const std::string &name, int64_t multipleOf) {
  if (multipleOf < 1)
    throw std::invalid_argument("dynamic size '" + name + "': multipleOf must be positive, got " +
                                std::to_string(multipleOf));
  if (kernel_)
    throw std::logic_error("declare every size before grid()");
  auto [it, inserted] = signature_.symbolMultiples.emplace(name, multipleOf);
  if (!inserted && it->second != multipleOf)
    throw std::invalid_argument("dynamic size '" + name + "' promised to be a multiple of both " +
                                std::to_string(it->second) + " and " + std::to_string(multipleOf));
  return Dim::symbol(name);
}

Tensor KernelBuilder::input(const std::string &name, std::vector<Dim> shape, DType dtype,
                            std::vector<int64_t> strides, int64_t alignBytes) {
  return addTensor(name, std::move(shape), dtype, std::move(strides), alignBytes, false);
}

Tensor KernelBuilder::output(const std::string &name, std::vector<Dim> shape, DType dtype,
                             std::vector<int64_t> strides, int64_t alignBytes) {
  return addTensor(name, std::move(shape), dtype, std::move(strides), alignBytes, true);
}

Uniform KernelBuilder::scalarInput(const std::string &name, DType dtype) {
  if (kernel_)
    throw std::logic_error("declare every scalar argument before grid()");
  if (dtype != DType::I32 && dtype != DType::I64 && dtype != DType::F32)
    throw std::invalid_argument("scalar argument '" + name + "': i32, i64 or f32");
  signature_.scalars.push_back({name, dtype});
  argTypes_.push_back(toMlirType(ctx_, dtype));
  return Uniform(this, (int)argTypes_.size() - 1, dtype);
}

mlir::Value Uniform::value() const { return k_->argument(arg_); }

Tensor KernelBuilder::addTensor(const std::string &name, std::vector<Dim> shape, DType dtype,
                                std::vector<int64_t> strides, int64_t alignBytes, bool output) {
  if (kernel_)
    throw std::logic_error("declare every tensor before grid()");
  if (!signature_.scalars.empty())
    throw std::logic_error("declare the tensors before the scalar arguments");
  size_t rank = shape.size();
  if (rank < 1 || rank > 8) // tk_tensor holds TK_MAX_DIMS = 8 sizes
    throw std::invalid_argument(errorPrefix() + "tensor '" + name + "' has " + std::to_string(rank) +
                                " dimensions; a tensor has 1 to 8");
  if (alignBytes < 1 || (alignBytes & (alignBytes - 1)) || alignBytes > 256)
    throw std::invalid_argument(errorPrefix() + "tensor '" + name +
                                "': alignBytes must be a power of two from 1 to "
                                "256, got " +
                                std::to_string(alignBytes));
  if (strides.empty()) { // row-major contiguous; static wherever the trailing sizes are
    strides.assign(rank, kDynamicStride);
    int64_t s = 1;
    bool known = true;
    for (size_t d = rank; d-- > 0;) {
      strides[d] = known ? s : kDynamicStride;
      if (!shape[d].isStatic())
        known = false;
      else
        s *= shape[d].staticValue();
    }
  }
  if (strides.size() != rank)
    throw std::invalid_argument("tensor '" + name + "': strides and shape ranks differ");
  int arg = (int)signature_.tensors.size();
  SmallVector<int64_t> memShape, memStrides;
  for (size_t d = 0; d < rank; ++d) {
    if (shape[d].isStatic()) {
      memShape.push_back(shape[d].staticValue());
    } else {
      memShape.push_back(ShapedType::kDynamic);
      if (shape[d].kind() == Dim::Kind::Symbol) {
        bool bound = false;
        for (auto &s : symbols_)
          bound |= s.first == shape[d].symbolName();
        if (!bound)
          symbols_.push_back({shape[d].symbolName(), {arg, (int)d}});
      }
    }
    memStrides.push_back(strides[d] == kDynamicStride ? ShapedType::kDynamic : strides[d]);
  }
  auto layout = StridedLayoutAttr::get(&ctx_, 0, memStrides);
  argTypes_.push_back(MemRefType::get(memShape, toMlirType(ctx_, dtype), layout));
  signature_.tensors.push_back({name, dtype, std::move(shape), std::move(strides), alignBytes, output});
  return Tensor(this, arg);
}

Value KernelBuilder::argument(int arg) {
  if (!kernel_)
    throw std::logic_error("tensors are values only inside grid()");
  return cast<tile::KernelOp>(kernel_).getBody().getArgument(arg);
}

Value KernelBuilder::materialize(const Dim &dim) {
  switch (dim.kind()) {
  case Dim::Kind::Constant:
    return arith::ConstantIndexOp::create(b_, loc_, dim.staticValue());
  case Dim::Kind::Symbol:
    for (auto &s : symbols_)
      if (s.first == dim.symbolName())
        return memref::DimOp::create(b_, loc_, argument(s.second.first), s.second.second);
    throw std::invalid_argument("size '" + dim.symbolName() + "' is not the size of any tensor");
  case Dim::Kind::Add:
    return arith::AddIOp::create(b_, loc_, materialize(dim.lhs()), materialize(dim.rhs()));
  case Dim::Kind::Mul:
    return arith::MulIOp::create(b_, loc_, materialize(dim.lhs()), materialize(dim.rhs()));
  case Dim::Kind::CeilDiv:
    return arith::CeilDivUIOp::create(b_, loc_, materialize(dim.lhs()), materialize(dim.rhs()));
  case Dim::Kind::FloorDiv:
    return arith::DivUIOp::create(b_, loc_, materialize(dim.lhs()), materialize(dim.rhs()));
  }
  return {};
}

/// A grid body without totals, as one returning none.
static std::function<std::vector<Tile>(const std::vector<Index> &)>
withoutTotals(const std::function<void(const std::vector<Index> &)> &body) {
  return [&body](const std::vector<Index> &indices) {
    body(indices);
    return std::vector<Tile>{};
  };
}

void KernelBuilder::persistentGrid(int64_t blocksPerSm, std::vector<Dim> sizes,
                                   const std::function<void(const std::vector<Index> &)> &body) {
  if (blocksPerSm < 1)
    throw std::invalid_argument("persistentGrid: 1 to 32 blocks per SM, got " + std::to_string(blocksPerSm));
  gridWithTotals(blocksPerSm, std::move(sizes), {}, withoutTotals(body));
}

void KernelBuilder::grid(std::vector<Dim> sizes, const std::function<void(const std::vector<Index> &)> &body) {
  gridWithTotals(0, std::move(sizes), {}, withoutTotals(body));
}

std::vector<Total> KernelBuilder::gridWithTotals(int64_t blocksPerSm, std::vector<Dim> sizes,
                                                 const std::vector<DType> &types,
                                                 const std::function<std::vector<Tile>(const std::vector<Index> &)> &body) {
  if (blocksPerSm < 0 || blocksPerSm > 32)
    throw std::invalid_argument("grid: 0 (one block per tile) to 32 blocks per SM, got " +
                                std::to_string(blocksPerSm));
  if (gridBuilt_)
    throw std::logic_error("a kernel has exactly one grid");
  signature_.persistentBlocksPerSm = blocksPerSm;
  gridBuilt_ = true;
  signature_.grid = sizes;
  b_.setInsertionPointToEnd(module_->getBody());
  auto kernel = tile::KernelOp::create(b_, loc_, StringAttr::get(&ctx_, signature_.name),
                                       TypeAttr::get(b_.getFunctionType(argTypes_, {})),
                                       b_.getI64IntegerAttr(signature_.threads), tile::ScheduleAttr(),
                                       ArrayAttr(), ArrayAttr());
  kernel_ = kernel;
  if (maxAccessBytes_ || vectorElements_ || transposeRows_ || rereadThreadIndex_ || minBlocksPerSm_ || readOnlyLoads_ ||
      warpsAlongRows_ || dependentLaunch_)
    kernel.setScheduleAttr(tile::ScheduleAttr::get(&ctx_, maxAccessBytes_, vectorElements_, transposeRows_,
                                                   rereadThreadIndex_, minBlocksPerSm_, readOnlyLoads_, warpsAlongRows_,
                                                   dependentLaunch_));
  for (size_t i = 0; i < signature_.tensors.size(); ++i) {
    const TensorParam &p = signature_.tensors[i];
    kernel.setArgAttr(i, "tile.align", b_.getI64IntegerAttr(p.alignBytes));
    // Each dimension's promised multiple (1: none), for sizes known at launch.
    SmallVector<int64_t> multiples;
    for (const Dim &d : p.shape) {
      auto it = d.kind() == Dim::Kind::Symbol ? signature_.symbolMultiples.find(d.symbolName())
                                              : signature_.symbolMultiples.end();
      multiples.push_back(it == signature_.symbolMultiples.end() ? 1 : it->second);
    }
    if (llvm::any_of(multiples, [](int64_t m) { return m > 1; }))
      kernel.setArgAttr(i, "tile.dim_multiples", b_.getDenseI64ArrayAttr(multiples));
  }
  Block *entry = b_.createBlock(&kernel.getBody());
  for (Type t : argTypes_)
    entry->addArgument(t, loc_);
  b_.setInsertionPointToStart(entry);
  SmallVector<Value> extents;
  for (const Dim &d : sizes)
    extents.push_back(materialize(d));
  SmallVector<Type> totalTypes;
  for (DType t : types)
    totalTypes.push_back(toMlirType(ctx_, t));
  auto gridOp = tile::GridOp::create(
      b_, loc_, totalTypes, extents,
      signature_.persistentBlocksPerSm ? b_.getI64IntegerAttr(signature_.persistentBlocksPerSm) : IntegerAttr());
  Block *gridBody = b_.createBlock(&gridOp.getBody());
  std::vector<Index> indices;
  for (size_t i = 0; i < sizes.size(); ++i)
    indices.emplace_back(this, gridBody->addArgument(b_.getIndexType(), loc_));
  b_.setInsertionPointToStart(gridBody);
  std::vector<Tile> parts = body(indices);
  if (parts.size() != types.size())
    throw std::invalid_argument("gridWithTotals: the body returned " + std::to_string(parts.size()) +
                                " tiles for " + std::to_string(types.size()) + " totals");
  SmallVector<Value> yielded;
  for (const Tile &t : parts)
    yielded.push_back(t.value());
  tile::YieldOp::create(b_, loc_, yielded);
  b_.setInsertionPointAfter(gridOp);
  tile::ReturnOp::create(b_, loc_);
  b_.setInsertionPoint(entry->getTerminator()); // code after the grid: before tile.return
  std::vector<Total> totals;
  for (size_t i = 0; i < types.size(); ++i)
    totals.emplace_back(gridOp.getTotals()[i], types[i]);
  return totals;
}

Index KernelBuilder::index(int64_t value) { return Index(this, arith::ConstantIndexOp::create(b_, loc_, value)); }
Index KernelBuilder::index(const Dim &dim) { return Index(this, materialize(dim)); }

Tile KernelBuilder::load(const Tensor &t, const std::vector<Index> &origin, const std::vector<int64_t> &shape,
                         int64_t splitLast, SourceLine where) {
  AtLine at(*this, where);
  Type elt = toMlirType(ctx_, t.param().dtype);
  auto type = tile::FragmentType::get(&ctx_, shape, elt);
  auto op = tile::LoadOp::create(b_, loc_, type, t.value(), values(origin), /*split_last=*/nullptr);
  if (splitLast)
    op.setSplitLastAttr(b_.getI64IntegerAttr(splitLast));
  return Tile(this, op);
}

Shared KernelBuilder::shared(const std::vector<int64_t> &shape, DType dtype, SourceLine where) {
  AtLine at(*this, where); // the compiler's shared-memory errors name this line
  for (int64_t d : shape)
    if (d <= 0)
      throw std::invalid_argument(errorPrefix() + "shared: buffer extents must be positive");
  auto space = gpu::AddressSpaceAttr::get(&ctx_, gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get(shape, toMlirType(ctx_, dtype), MemRefLayoutAttrInterface(), space);
  return Shared(tile::AllocOp::create(b_, loc_, type).getBuffer(), shape, dtype);
}

void KernelBuilder::copy(const Tensor &t, const std::vector<Index> &origin, const Shared &buf) {
  if (t.param().dtype != buf.dtype())
    throw std::invalid_argument("copy: tensor '" + t.param().name + "' is " + name(t.param().dtype) +
                                ", the buffer " + name(buf.dtype()));
  tile::CopyOp::create(b_, loc_, t.value(), values(origin), buf.value(), /*async=*/false, /*barriers=*/Value(),
                       /*slot=*/Value());
}

Tile KernelBuilder::load(const Shared &buf, const std::vector<Index> &origin, const std::vector<int64_t> &shape) {
  auto type = tile::FragmentType::get(&ctx_, shape, toMlirType(ctx_, buf.dtype()));
  return Tile(this, tile::LoadOp::create(b_, loc_, type, buf.value(), values(origin), /*split_last=*/nullptr));
}

void KernelBuilder::pipeline(const Index &lb, const Index &ub, int64_t stages,
                             const std::function<void(const Index &)> &body) {
  if (stages < 1 || stages > 8)
    throw std::invalid_argument("pipeline: 1 to 8 stages, got " + std::to_string(stages));
  auto loop = tile::PipelineOp::create(b_, loc_, mlir::TypeRange(), lb.value(), ub.value(), mlir::ValueRange(),
                                       b_.getI64IntegerAttr(stages));
  Block *bodyBlock = b_.createBlock(&loop.getBody());
  Index i(this, bodyBlock->addArgument(b_.getIndexType(), loc_));
  b_.setInsertionPointToStart(bodyBlock);
  body(i);
  tile::YieldOp::create(b_, loc_);
  b_.setInsertionPointAfter(loop);
}

void KernelBuilder::atomicAdd(const Tensor &t, const std::vector<Index> &origin, const Total &value) {
  if (t.param().dtype != value.dtype())
    throw std::invalid_argument("atomicAdd: '" + t.param().name + "' holds " + name(t.param().dtype) +
                                ", the total is " + name(value.dtype()));
  tile::AtomicAddOp::create(b_, loc_, value.value(), t.value(), values(origin));
}

void KernelBuilder::atomicAdd(const Tensor &t, const std::vector<Index> &origin, const Tile &value) {
  tile::StoreOp::create(b_, loc_, value.value(), t.value(), values(origin), /*split_last=*/nullptr,
                        /*atomic_add=*/true, /*mask=*/Value());
}

Tile KernelBuilder::gatherRows(const Tensor &t, const Tile &rows, const Index &col, int64_t n, bool skipOutside) {
  if (t.param().shape.size() != 2)
    throw std::invalid_argument("gatherRows reads a 2-D tensor; '" + t.param().name + "' has " +
                                std::to_string(t.param().shape.size()) + " dimensions");
  std::vector<int64_t> shape = rows.shape();
  if (rows.dtype() != DType::I32 || shape.size() != 2 || shape[1] != 1)
    throw std::invalid_argument("gatherRows needs an i32 [m, 1] row tile");
  Tile wide = n == 1 ? rows : expand(rows, 1, n);
  auto type = tile::FragmentType::get(&ctx_, {shape[0], n}, toMlirType(ctx_, t.param().dtype));
  auto op = tile::GatherRowsOp::create(b_, loc_, type, t.value(), wide.value(), col.value());
  if (skipOutside)
    op.setSkipOutside(true);
  return Tile(this, op);
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// What scatter and scatterAdd check alike.
static void checkScatter(const char *what, const Tensor &t, const Tile &index, const Tile &value) {
  const std::string op = what;
  if (t.param().shape.size() != 1)
    throw std::invalid_argument(op + " writes a 1-D tensor; '" + t.param().name + "' has " +
                                std::to_string(t.param().shape.size()) + " dimensions");
  if (index.dtype() != DType::I32)
    throw std::invalid_argument(op + " needs an i32 index tile, got " + name(index.dtype()));
  if (index.shape() != value.shape())
    throw std::invalid_argument(op + " into '" + t.param().name + "': the index tile is " + shapeString(index.shape()) +
                                " but the value tile is " + shapeString(value.shape()));
  if (value.dtype() != t.param().dtype)
    throw std::invalid_argument(op + " into '" + t.param().name + "': it holds " + name(t.param().dtype) +
                                ", the values are " + name(value.dtype()));
}

void KernelBuilder::scatter(const Tensor &t, const Tile &index, const Tile &value) {
  checkScatter("scatter", t, index, value);
  tile::ScatterOp::create(b_, loc_, value.value(), t.value(), index.value());
}

void KernelBuilder::scatterAdd(const Tensor &t, const Tile &index, const Tile &value) {
  checkScatter("scatterAdd", t, index, value);
  if (isFloat(value.dtype()))
    throw std::invalid_argument("scatterAdd into '" + t.param().name + "' adds integers (a float sum would depend on "
                                "the order of the blocks), got " + name(value.dtype()));
  auto op = tile::ScatterOp::create(b_, loc_, value.value(), t.value(), index.value());
  op.setAdd(true);
}

/// A scatter into a shared buffer: 1-D, an i32 index tile of the value's shape, the buffer's type.
static void checkSharedScatter(const char *what, const Shared &buf, const Tile &index, const Tile &value) {
  if (buf.shape().size() != 1)
    throw std::invalid_argument(std::string(what) + " writes a 1-D shared buffer, this one has " +
                                std::to_string(buf.shape().size()) + " dimensions");
  if (index.dtype() != DType::I32 || index.shape() != value.shape())
    throw std::invalid_argument(std::string(what) + " into a shared buffer: needs an i32 index tile of the value's "
                                "shape " + shapeString(value.shape()) + ", got " + name(index.dtype()) + " " +
                                shapeString(index.shape()));
  if (value.dtype() != buf.dtype())
    throw std::invalid_argument(std::string(what) + " into a shared buffer of " + name(buf.dtype()) + ": the tile is " +
                                name(value.dtype()));
}

void KernelBuilder::scatter(const Shared &buf, const Tile &index, const Tile &value) {
  checkSharedScatter("scatter", buf, index, value);
  tile::ScatterOp::create(b_, loc_, value.value(), buf.value(), index.value());
}

void KernelBuilder::scatterAdd(const Shared &buf, const Tile &index, const Tile &value) {
  checkSharedScatter("scatterAdd", buf, index, value);
  if (isFloat(value.dtype()))
    throw std::invalid_argument("scatterAdd into a shared buffer of " + std::string(name(buf.dtype())) +
                                ": adds integers of the buffer's type, got " + name(value.dtype()));
  auto op = tile::ScatterOp::create(b_, loc_, value.value(), buf.value(), index.value());
  op.setAdd(true);
}

void KernelBuilder::store(const Shared &buf, const std::vector<Index> &origin, const Tile &value) {
  if (value.dtype() != buf.dtype())
    throw std::invalid_argument("store into a shared buffer of " + std::string(name(buf.dtype())) + ": the tile is " +
                                name(value.dtype()));
  tile::StoreOp::create(b_, loc_, value.value(), buf.value(), values(origin), /*split_last=*/nullptr,
                        /*atomic_add=*/false, /*mask=*/Value());
}

void KernelBuilder::barrier() { tile::BarrierOp::create(b_, loc_); }

void KernelBuilder::scatterRows(const Tensor &t, const Tile &rows, const Index &col, const Tile &value) {
  if (t.param().shape.size() != 2)
    throw std::invalid_argument("scatterRows writes a 2-D tensor; '" + t.param().name + "' has " +
                                std::to_string(t.param().shape.size()) + " dimensions");
  std::vector<int64_t> shape = rows.shape(), vshape = value.shape();
  if (rows.dtype() != DType::I32 || shape.size() != 2 || shape[1] != 1)
    throw std::invalid_argument("scatterRows needs an i32 [m, 1] row tile");
  if (vshape.size() != 2 || vshape[0] != shape[0])
    throw std::invalid_argument("scatterRows into '" + t.param().name + "': " + std::to_string(shape[0]) +
                                " rows named for a value tile of " + shapeString(vshape));
  if (value.dtype() != t.param().dtype)
    throw std::invalid_argument("scatterRows into '" + t.param().name + "': it holds " + name(t.param().dtype) +
                                ", the values are " + name(value.dtype()));
  Tile wide = vshape[1] == 1 ? rows : expand(rows, 1, vshape[1]);
  tile::ScatterRowsOp::create(b_, loc_, value.value(), t.value(), wide.value(), col.value());
}

Tile KernelBuilder::gather(const Tensor &t, const Tile &index) {
  if (t.param().shape.size() != 1)
    throw std::invalid_argument("gather reads a 1-D tensor; '" + t.param().name + "' has " +
                                std::to_string(t.param().shape.size()) + " dimensions");
  if (index.dtype() != DType::I32)
    throw std::invalid_argument("gather needs an i32 index tile");
  std::vector<int64_t> shape = index.shape();
  auto type = tile::FragmentType::get(&ctx_, shape, toMlirType(ctx_, t.param().dtype));
  return Tile(this, tile::GatherOp::create(b_, loc_, type, t.value(), index.value()));
}

Tile KernelBuilder::gather(const Shared &buf, const Tile &index) {
  if (buf.shape().size() != 1)
    throw std::invalid_argument("gather reads a 1-D shared buffer, this one has " + std::to_string(buf.shape().size()) +
                                " dimensions");
  if (index.dtype() != DType::I32)
    throw std::invalid_argument("gather needs an i32 index tile");
  auto type = tile::FragmentType::get(&ctx_, index.shape(), toMlirType(ctx_, buf.dtype()));
  return Tile(this, tile::GatherOp::create(b_, loc_, type, buf.value(), index.value()));
}

Tile KernelBuilder::iota(const std::vector<int64_t> &shape, int64_t dim, DType dtype) {
  if (dim < 0 || dim >= (int64_t)shape.size())
    throw std::invalid_argument("iota: dim " + std::to_string(dim) + " out of range for a tile of rank " +
                                std::to_string(shape.size()));
  if (dtype != DType::I32 && dtype != DType::I64)
    throw std::invalid_argument(std::string("iota: coordinates are i32 or i64, got ") + name(dtype));
  auto type = tile::FragmentType::get(&ctx_, shape, toMlirType(ctx_, dtype));
  return Tile(this, tile::IotaOp::create(b_, loc_, type, b_.getI64IntegerAttr(dim)));
}

BuiltKernel KernelBuilder::finish() {
  if (!gridBuilt_)
    throw std::logic_error("kernel '" + signature_.name + "' has no grid");
  // A transpose that only fed dot() (which took its input, rhs_transposed) would still be lowered: drop it.
  SmallVector<tile::TransposeOp> dead;
  module_->walk([&](tile::TransposeOp t) { dead.push_back(t); });
  for (tile::TransposeOp t : llvm::reverse(dead)) // users first: transpose(transpose(w)) goes whole
    if (t->use_empty())
      t->erase();
  std::string diagnostics;
  {
    llvm::raw_string_ostream os(diagnostics);
    ScopedDiagnosticHandler handler(&ctx_, [&](Diagnostic &d) {
      os << d.getLocation() << ": " << d << "\n";
      return success();
    });
    if (failed(verify(*module_)))
      throw std::runtime_error("kernel '" + signature_.name + "' is malformed:\n" + diagnostics);
  }
  refuseWrittenInputs(*module_, signature_);
  BuiltKernel out;
  out.module = std::move(module_);
  out.signature = signature_;
  return out;
}

//===----------------------------------------------------------------------===//
// Index and Tensor
//===----------------------------------------------------------------------===//

KernelBuilder::AtLine::AtLine(KernelBuilder &k, SourceLine where) : k_(k), savedLoc_(k.loc_), savedLine_(k.line_) {
  if (!where.file)
    return;
  k.line_ = where;
  k.loc_ = FileLineColLoc::get(&k.ctx_, where.file, where.line, 0);
}

KernelBuilder::AtLine::~AtLine() {
  k_.loc_ = savedLoc_;
  k_.line_ = savedLine_;
}

std::string KernelBuilder::where() const {
  if (!line_.file)
    return "";
  return std::string(line_.file) + ":" + std::to_string(line_.line) + ": ";
}

const TensorParam &Tensor::param() const { return k_->param(arg_); }
Value Tensor::value() const { return k_->argument(arg_); }

} // namespace tk::dsl
