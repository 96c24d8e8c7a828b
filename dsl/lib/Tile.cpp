//===- Tile.cpp - fragments and elementwise scalars ------------------------===//
#include "tk/dsl/KernelBuilder.h"

#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <stdexcept>

using namespace mlir;

namespace tk::dsl {

static tile::FragmentType fragType(const Tile &t) { return cast<tile::FragmentType>(t.value().getType()); }

static DType fromMlir(Type t) {
  if (t.isBF16()) return DType::BF16;
  if (t.isF16()) return DType::F16;
  if (t.isF32()) return DType::F32;
  if (isa<Float8E4M3FNType>(t)) return DType::F8E4M3;
  if (t.isInteger(8)) return DType::I8;
  if (t.isInteger(16)) return DType::I16;
  if (t.isInteger(32)) return DType::I32;
  return DType::I64;
}

std::vector<int64_t> Tile::shape() const {
  auto s = fragType(*this).getShape();
  return std::vector<int64_t>(s.begin(), s.end());
}

DType Tile::dtype() const { return fromMlir(fragType(*this).getElementType()); }

Tile Tile::to(DType type) const {
  auto from = fragType(*this);
  auto result = tile::FragmentType::get(&k_->context(), from.getShape(), toMlirType(k_->context(), type));
  return Tile(k_, tile::ConvertOp::create(k_->opBuilder(), k_->loc(), result, v_));
}

/// The shape tiles of one rank broadcast to: per dimension the size they
/// share, where the others have 1 (numpy's rule, without adding dimensions).
/// Empty when they do not broadcast.
static std::vector<int64_t> broadcastShape(const std::vector<Tile> &tiles) {
  std::vector<int64_t> shape = tiles[0].shape();
  for (const Tile &t : tiles) {
    std::vector<int64_t> s = t.shape();
    if (s.size() != shape.size())
      return {};
    for (size_t d = 0; d < s.size(); ++d) {
      if (s[d] == shape[d] || s[d] == 1)
        continue;
      if (shape[d] != 1)
        return {};
      shape[d] = s[d];
    }
  }
  return shape;
}

/// `t` repeated along its dimensions of size 1 up to `shape` (tile.expand).
static Tile broadcastTo(const Tile &t, const std::vector<int64_t> &shape, SourceLine where) {
  Tile r = t;
  std::vector<int64_t> s = t.shape();
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] != shape[d])
      r = expand(r, (int64_t)d, shape[d], where);
  return r;
}

Tile map(const std::vector<Tile> &inputs, DType result,
         const std::function<Scalar(const std::vector<Scalar> &)> &body, SourceLine where) {
  if (inputs.empty())
    throw std::invalid_argument("map needs at least one input tile");
  KernelBuilder *k = inputs[0].builder();
  KernelBuilder::AtLine at(*k, where);
  OpBuilder &b = k->opBuilder();
  std::vector<int64_t> target = broadcastShape(inputs);
  if (target.empty()) {
    size_t i = 1; // the first input that does not broadcast with input 0 (else the last)
    while (i + 1 < inputs.size() && !broadcastShape({inputs[0], inputs[i]}).empty())
      ++i;
    throw std::invalid_argument(k->errorPrefix() + "map over tiles of different shapes: input " + std::to_string(i) +
                                " is " + shapeString(inputs[i].shape()) + ", input 0 is " +
                                shapeString(inputs[0].shape()) +
                                " (tiles of one rank broadcast where a size is 1; a reduced tile takes its input's "
                                "shape back with expand())");
  }
  SmallVector<Value> operands;
  for (const Tile &t : inputs)
    operands.push_back(broadcastTo(t, target, where).value());
  llvm::ArrayRef<int64_t> shape(target);
  Type elt = toMlirType(k->context(), result);
  auto type = tile::FragmentType::get(&k->context(), shape, elt);
  auto op = tile::ParallelOp::create(b, k->loc(), type, operands);
  Block *block = new Block();
  op.getBody().push_back(block);
  std::vector<Scalar> args;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(block);
  for (const Tile &t : inputs)
    args.emplace_back(&b, block->addArgument(fragType(t).getElementType(), k->loc()));
  Scalar out = body(args);
  if (out.value().getType() != elt) {
    std::string got, want;
    llvm::raw_string_ostream gs(got), ws(want);
    gs << out.value().getType();
    ws << elt;
    throw std::invalid_argument(k->errorPrefix() + "the map's body returns " + got +
                                ", the map was declared to return " + want);
  }
  tile::YieldOp::create(b, k->loc(), ValueRange{out.value()});
  return Tile(k, op.getResult());
}

/// An elementwise operator on two tiles (no source line: C++ operators take
/// no extra argument, so the error names the operator and the shapes).
static Tile binary(const char *op, const Tile &a, const Tile &b, Scalar (*f)(const Scalar &, const Scalar &)) {
  if (broadcastShape({a, b}).empty())
    throw std::invalid_argument(a.builder()->errorPrefix() + op + " of tiles of different shapes, " +
                                shapeString(a.shape()) + " and " + shapeString(b.shape()) +
                                " (tiles of one rank broadcast where a size is 1; expand() repeats a reduced tile "
                                "back to its input's shape)");
  return map({a, b}, a.dtype(), [&](const std::vector<Scalar> &s) { return f(s[0], s[1]); }, SourceLine{});
}

Tile operator+(const Tile &a, const Tile &b) { return binary("+", a, b, [](auto &x, auto &y) { return x + y; }); }
Tile operator-(const Tile &a, const Tile &b) { return binary("-", a, b, [](auto &x, auto &y) { return x - y; }); }
Tile operator*(const Tile &a, const Tile &b) { return binary("*", a, b, [](auto &x, auto &y) { return x * y; }); }
Tile operator/(const Tile &a, const Tile &b) { return binary("/", a, b, [](auto &x, auto &y) { return x / y; }); }
/// `c` as a constant of `like`'s type: f32, or an integral c as i32 / i64.
static Scalar constantLike(const Scalar &like, double c) {
  mlir::Type t = like.value().getType();
  if (t.isF32())
    return like.constantF32(c);
  if ((t.isInteger(32) || t.isInteger(64)) && c == (double)(int64_t)c)
    return t.isInteger(32) ? like.constantI32((int64_t)c) : like.constantI64((int64_t)c);
  std::string type;
  llvm::raw_string_ostream os(type);
  os << t;
  throw std::invalid_argument("a number with a tile of " + type + ": f32 tiles take any number, i32 and i64 tiles " +
                              "integral ones; convert the tile (to()) first");
}

template <typename F> static Tile withNumber(const Tile &a, double c, F f) {
  return map({a}, a.dtype(), [&](const std::vector<Scalar> &s) { return f(s[0], constantLike(s[0], c)); },
             SourceLine{});
}

Tile operator+(const Tile &a, double c) { return withNumber(a, c, [](auto &x, auto y) { return x + y; }); }
Tile operator-(const Tile &a, double c) { return withNumber(a, c, [](auto &x, auto y) { return x - y; }); }
Tile operator*(const Tile &a, double c) { return withNumber(a, c, [](auto &x, auto y) { return x * y; }); }
Tile operator/(const Tile &a, double c) { return withNumber(a, c, [](auto &x, auto y) { return x / y; }); }
Tile operator+(double c, const Tile &a) { return withNumber(a, c, [](auto &x, auto y) { return y + x; }); }
Tile operator-(double c, const Tile &a) { return withNumber(a, c, [](auto &x, auto y) { return y - x; }); }
Tile operator*(double c, const Tile &a) { return withNumber(a, c, [](auto &x, auto y) { return y * x; }); }
Tile operator/(double c, const Tile &a) { return withNumber(a, c, [](auto &x, auto y) { return y / x; }); }

Tile min(const Tile &a, const Tile &b) { return binary("min", a, b, [](auto &x, auto &y) { return min(x, y); }); }
Tile max(const Tile &a, const Tile &b) { return binary("max", a, b, [](auto &x, auto &y) { return max(x, y); }); }
Tile min(const Tile &a, double c) { return withNumber(a, c, [](auto &x, auto y) { return min(x, y); }); }
Tile max(const Tile &a, double c) { return withNumber(a, c, [](auto &x, auto y) { return max(x, y); }); }
Tile min(double c, const Tile &a) { return withNumber(a, c, [](auto &x, auto y) { return min(y, x); }); }
Tile max(double c, const Tile &a) { return withNumber(a, c, [](auto &x, auto y) { return max(y, x); }); }
Tile abs(const Tile &a) {
  return map({a}, a.dtype(), [](const std::vector<Scalar> &s) { return abs(s[0]); }, SourceLine{});
}
Tile clamp(const Tile &a, double lo, double hi) {
  if (!(lo <= hi))
    throw std::invalid_argument("clamp: needs lo <= hi, got " + std::to_string(lo) + " and " + std::to_string(hi));
  return min(max(a, lo), hi);
}

static Tile reduce(tile::ReduceKind kind, const Tile &t, int64_t dim, int64_t group, SourceLine where) {
  KernelBuilder *k = t.builder();
  KernelBuilder::AtLine at(*k, where);
  auto in = fragType(t);
  if (dim < 0 || dim >= in.getRank())
    throw std::invalid_argument(k->errorPrefix() + "reduce of a " + shapeString(t.shape()) +
                                " tile along dimension " + std::to_string(dim) + ", which it does not have");
  if (group < 0 || (group && in.getShape()[dim] % group))
    throw std::invalid_argument(k->errorPrefix() + "reduce of a " + shapeString(t.shape()) +
                                " tile in groups of " + std::to_string(group) + " along dimension " +
                                std::to_string(dim) + ", which they do not divide");
  if (group == 0)
    group = in.getShape()[dim];
  SmallVector<int64_t> shape(in.getShape());
  shape[dim] /= group;
  auto type = tile::FragmentType::get(&k->context(), shape, in.getElementType());
  return Tile(k, tile::ReduceOp::create(k->opBuilder(), k->loc(), type, kind, t.value(), dim, group));
}

Tile reduce_sum(const Tile &t, int64_t dim, int64_t group, SourceLine where) {
  return reduce(tile::ReduceKind::sum, t, dim, group, where);
}
Tile reduce_max(const Tile &t, int64_t dim, int64_t group, SourceLine where) {
  return reduce(tile::ReduceKind::max, t, dim, group, where);
}
Tile reduce_min(const Tile &t, int64_t dim, int64_t group, SourceLine where) {
  return reduce(tile::ReduceKind::min, t, dim, group, where);
}
Tile reduce_absmax(const Tile &t, int64_t dim, int64_t group, SourceLine where) {
  return reduce(tile::ReduceKind::absmax, t, dim, group, where);
}

static void checkLine(const char *what, const Tile &t, int64_t dim) {
  if (dim < 0 || dim >= (int64_t)t.shape().size())
    throw std::invalid_argument(std::string(what) + ": dim " + std::to_string(dim) + " out of range for a tile of rank " +
                                std::to_string(t.shape().size()));
  if (t.dtype() != DType::I8 && t.dtype() != DType::I16 && t.dtype() != DType::I32 && t.dtype() != DType::I64)
    throw std::invalid_argument(std::string(what) + " needs an integer tile, got " + name(t.dtype()));
}

Tile scan_sum(const Tile &t, int64_t dim, bool exclusive) {
  checkLine("scan_sum", t, dim);
  KernelBuilder *k = t.builder();
  auto op = tile::ScanOp::create(k->opBuilder(), k->loc(), fragType(t), t.value(), dim);
  op.setExclusive(exclusive);
  return Tile(k, op);
}

Tile count_equal(const Tile &keys, int64_t dim, bool before) {
  checkLine("count_equal", keys, dim);
  KernelBuilder *k = keys.builder();
  auto type = tile::FragmentType::get(&k->context(), fragType(keys).getShape(), k->opBuilder().getI32Type());
  auto op = tile::CountEqualOp::create(k->opBuilder(), k->loc(), type, keys.value(), dim);
  op.setBefore(before);
  return Tile(k, op);
}

Tile relayout(const Tile &t, SourceLine where) {
  KernelBuilder *k = t.builder();
  KernelBuilder::AtLine at(*k, where);
  auto in = fragType(t);
  auto type = tile::FragmentType::get(&k->context(), in.getShape(), in.getElementType());
  return Tile(k, tile::RelayoutOp::create(k->opBuilder(), k->loc(), type, t.value()));
}

Tile transpose(const Tile &t, SourceLine where) {
  KernelBuilder *k = t.builder();
  KernelBuilder::AtLine at(*k, where);
  auto in = fragType(t);
  if (in.getRank() < 2)
    throw std::invalid_argument(k->errorPrefix() + "transpose of a " + shapeString(t.shape()) +
                                " tile: it needs two dimensions or more");
  SmallVector<int64_t> shape(in.getShape());
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  auto type = tile::FragmentType::get(&k->context(), shape, in.getElementType());
  return Tile(k, tile::TransposeOp::create(k->opBuilder(), k->loc(), type, t.value()));
}

namespace {

/// tile.dot of a and b, added to `acc` when given (dot's two forms).
Tile buildDot(const Tile &a, const Tile &b, const Tile *acc, DotEngine engine, SourceLine where) {
  KernelBuilder *k = a.builder();
  KernelBuilder::AtLine at(*k, where);
  auto ta = fragType(a), tb = fragType(b);
  auto named = [&] { return shapeString(a.shape()) + " and " + shapeString(b.shape()); };
  // dot(a, transpose(w)) multiplies by w's rows as they are (rhs_transposed): no exchange between threads.
  auto transposed = b.value().getDefiningOp<tile::TransposeOp>();
  if (transposed && cast<tile::FragmentType>(transposed.getInput().getType()).getRank() != 2)
    transposed = nullptr;
  if (ta.getRank() != 2 || tb.getRank() != 2 || ta.getShape()[1] != tb.getShape()[0])
    throw std::invalid_argument(k->errorPrefix() + "dot of " + named() + ": needs an [M, K] and a [K, N] tile");
  for (auto t : {ta, tb})
    if (!t.getElementType().isF32() && !isa<BFloat16Type>(t.getElementType()))
      throw std::invalid_argument(k->errorPrefix() + "dot of " + named() + ": takes f32 or bf16 tiles");
  const bool bf16 = isa<BFloat16Type>(ta.getElementType()) && isa<BFloat16Type>(tb.getElementType());
  const int64_t m = ta.getShape()[0], kk = ta.getShape()[1], n = tb.getShape()[1], kStep = bf16 ? 16 : 8;
  if (m % 16 || n % 8 || kk % kStep)
    throw std::invalid_argument(k->errorPrefix() + "dot of " + named() +
                                ": tensor cores need M a multiple of 16, N of 8 and K of " + std::to_string(kStep) +
                                (bf16 ? " (bf16)" : " (TF32)"));
  auto type = tile::FragmentType::get(&k->context(), {m, n}, Float32Type::get(&k->context()));
  Value accValue;
  if (acc) {
    auto tc = fragType(*acc);
    if (tc.getShape() != type.getShape() || !tc.getElementType().isF32())
      throw std::invalid_argument(k->errorPrefix() + "dot of " + named() + " into a " + shapeString(acc->shape()) +
                                  " accumulator: it must be an [" + std::to_string(m) + ", " + std::to_string(n) +
                                  "] f32 tile");
    accValue = acc->value();
  }
  const bool warpgroup = engine == DotEngine::Warpgroup;
  if (transposed)
    return Tile(k, tile::DotOp::create(k->opBuilder(), k->loc(), type, a.value(), transposed.getInput(), accValue, true,
                                       warpgroup));
  return Tile(k, tile::DotOp::create(k->opBuilder(), k->loc(), type, a.value(), b.value(), accValue, false, warpgroup));
}

} // namespace

Tile dot(const Tile &a, const Tile &b, SourceLine where) { return buildDot(a, b, nullptr, DotEngine::Warp, where); }

Tile dot(const Tile &a, const Tile &b, const Tile &acc, SourceLine where) {
  return buildDot(a, b, &acc, DotEngine::Warp, where);
}

Tile dot(const Tile &a, const Tile &b, const Tile &acc, DotEngine engine, SourceLine where) {
  return buildDot(a, b, &acc, engine, where);
}

Tile expand(const Tile &t, int64_t dim, int64_t group, SourceLine where) {
  KernelBuilder *k = t.builder();
  KernelBuilder::AtLine at(*k, where);
  auto in = fragType(t);
  if (dim < 0 || dim >= in.getRank() || group < 1)
    throw std::invalid_argument(k->errorPrefix() + "expand of a " + shapeString(t.shape()) +
                                " tile along dimension " + std::to_string(dim) + " by " + std::to_string(group) +
                                ": needs a dimension it has and a group of 1 or more");
  SmallVector<int64_t> shape(in.getShape());
  shape[dim] *= group;
  auto type = tile::FragmentType::get(&k->context(), shape, in.getElementType());
  return Tile(k, tile::ExpandOp::create(k->opBuilder(), k->loc(), type, t.value(), dim, group));
}

Tile pack_e2m1(const Tile &t) {
  KernelBuilder *k = t.builder();
  auto in = fragType(t);
  if (!in.getElementType().isF32())
    throw std::invalid_argument("pack_e2m1 packs an f32 tile");
  SmallVector<int64_t> shape(in.getShape());
  if (shape.back() % 2)
    throw std::invalid_argument("pack_e2m1 needs an even last dimension");
  shape.back() /= 2;
  auto type = tile::FragmentType::get(&k->context(), shape, k->opBuilder().getI8Type());
  return Tile(k, tile::PackE2M1Op::create(k->opBuilder(), k->loc(), type, t.value()));
}

Tile unpack_e2m1(const Tile &t) {
  KernelBuilder *k = t.builder();
  auto in = fragType(t);
  if (!in.getElementType().isInteger(8))
    throw std::invalid_argument("unpack_e2m1 unpacks an i8 tile");
  SmallVector<int64_t> shape(in.getShape());
  shape.back() *= 2;
  auto type = tile::FragmentType::get(&k->context(), shape, k->opBuilder().getF32Type());
  return Tile(k, tile::UnpackE2M1Op::create(k->opBuilder(), k->loc(), type, t.value()));
}

Tile e2m1_to_e4m3(const Tile &codes, const Tile &shift) {
  KernelBuilder *k = codes.builder();
  auto in = fragType(codes), by = fragType(shift);
  if (!in.getElementType().isInteger(8) || !by.getElementType().isInteger(32))
    throw std::invalid_argument("e2m1_to_e4m3 takes an i8 tile of codes (two per byte) and an i32 tile of shifts");
  SmallVector<int64_t> shape(in.getShape());
  shape.back() *= 2;
  if (by.getShape() != ArrayRef<int64_t>(shape))
    throw std::invalid_argument("e2m1_to_e4m3: the shifts need the codes' shape with twice the last dimension");
  auto type = tile::FragmentType::get(&k->context(), shape, k->opBuilder().getType<mlir::Float8E4M3FNType>());
  return Tile(k, tile::E2M1ToE4M3Op::create(k->opBuilder(), k->loc(), type, codes.value(), shift.value()));
}

Tile pack_e5m6(const Tile &t) {
  KernelBuilder *k = t.builder();
  auto in = fragType(t);
  if (!in.getElementType().isF32())
    throw std::invalid_argument("pack_e5m6 packs an f32 tile");
  SmallVector<int64_t> shape(in.getShape());
  if (shape.back() % 8)
    throw std::invalid_argument("pack_e5m6 needs a last dimension that is a multiple of 8");
  shape.back() = shape.back() / 2 * 3;
  auto type = tile::FragmentType::get(&k->context(), shape, k->opBuilder().getI8Type());
  return Tile(k, tile::PackE5M6Op::create(k->opBuilder(), k->loc(), type, t.value()));
}

Tile unpack_e5m6(const Tile &t) {
  KernelBuilder *k = t.builder();
  auto in = fragType(t);
  if (!in.getElementType().isInteger(8))
    throw std::invalid_argument("unpack_e5m6 unpacks an i8 tile");
  SmallVector<int64_t> shape(in.getShape());
  if (shape.back() % 12)
    throw std::invalid_argument("unpack_e5m6 needs a last dimension that is a multiple of 12 bytes");
  shape.back() = shape.back() / 3 * 2;
  auto type = tile::FragmentType::get(&k->context(), shape, k->opBuilder().getF32Type());
  return Tile(k, tile::UnpackE5M6Op::create(k->opBuilder(), k->loc(), type, t.value()));
}

//===----------------------------------------------------------------------===//
// Scalar
//===----------------------------------------------------------------------===//

bool Scalar::isFloat() const { return isa<FloatType>(v_.getType()); }

Scalar Scalar::constantF32(double c) const {
  return Scalar(b_, arith::ConstantOp::create(*b_, v_.getLoc(), b_->getF32FloatAttr((float)c)));
}

Scalar Scalar::constantI32(int64_t c) const {
  return Scalar(b_, arith::ConstantOp::create(*b_, v_.getLoc(), b_->getI32IntegerAttr((int32_t)c)));
}

Scalar Scalar::zero(DType dtype) const {
  Type t = toMlirType(*b_->getContext(), dtype);
  return Scalar(b_, arith::ConstantOp::create(*b_, v_.getLoc(), t, b_->getZeroAttr(t)));
}

Scalar Scalar::index(const Index &i) const {
  return Scalar(b_, arith::IndexCastOp::create(*b_, v_.getLoc(), b_->getI32Type(), i.value()));
}

Scalar Scalar::toF32() const {
  if (v_.getType().isF32())
    return *this;
  if (!isFloat())
    throw std::invalid_argument("toF32 of an integer scalar");
  return Scalar(b_, arith::ExtFOp::create(*b_, v_.getLoc(), b_->getF32Type(), v_));
}

Scalar Scalar::bitsAsI32() const {
  return Scalar(b_, arith::BitcastOp::create(*b_, v_.getLoc(), b_->getI32Type(), v_));
}

Scalar Scalar::truncToI8() const {
  return Scalar(b_, arith::TruncIOp::create(*b_, v_.getLoc(), b_->getI8Type(), v_));
}

Scalar Scalar::zextToI32() const {
  return Scalar(b_, arith::ExtUIOp::create(*b_, v_.getLoc(), b_->getI32Type(), v_));
}

Scalar Scalar::sextToI64() const {
  if (!v_.getType().isInteger(32))
    throw std::invalid_argument("sextToI64 of a non-i32 scalar");
  return Scalar(b_, arith::ExtSIOp::create(*b_, v_.getLoc(), b_->getI64Type(), v_));
}

Scalar Scalar::bitsAsF32() const {
  return Scalar(b_, arith::BitcastOp::create(*b_, v_.getLoc(), b_->getF32Type(), v_));
}

template <typename FOp, typename IOp>
static Scalar arithmetic(const Scalar &a, const Scalar &b) {
  OpBuilder &ob = a.builder();
  if (a.value().getType() != b.value().getType())
    throw std::invalid_argument("scalar operands of different types");
  if (a.isFloat())
    return Scalar(&ob, FOp::create(ob, a.value().getLoc(), a.value(), b.value()));
  return Scalar(&ob, IOp::create(ob, a.value().getLoc(), a.value(), b.value()));
}

template <typename IOp>
static Scalar integer(const Scalar &a, const Scalar &b) {
  if (a.isFloat() || b.isFloat())
    throw std::invalid_argument("bitwise operation on a float scalar");
  OpBuilder &ob = a.builder();
  return Scalar(&ob, IOp::create(ob, a.value().getLoc(), a.value(), b.value()));
}

Scalar operator+(const Scalar &a, const Scalar &b) { return arithmetic<arith::AddFOp, arith::AddIOp>(a, b); }
Scalar operator-(const Scalar &a, const Scalar &b) { return arithmetic<arith::SubFOp, arith::SubIOp>(a, b); }
Scalar operator*(const Scalar &a, const Scalar &b) { return arithmetic<arith::MulFOp, arith::MulIOp>(a, b); }
Scalar operator/(const Scalar &a, const Scalar &b) { return arithmetic<arith::DivFOp, arith::DivUIOp>(a, b); }
Scalar max(const Scalar &a, const Scalar &b) { return arithmetic<arith::MaxNumFOp, arith::MaxSIOp>(a, b); }
Scalar min(const Scalar &a, const Scalar &b) { return arithmetic<arith::MinNumFOp, arith::MinSIOp>(a, b); }
Scalar operator&(const Scalar &a, const Scalar &b) { return integer<arith::AndIOp>(a, b); }
Scalar operator|(const Scalar &a, const Scalar &b) { return integer<arith::OrIOp>(a, b); }
/// The shift amount as a constant of the shifted value's type (i32 or i64).
static Scalar shiftAmount(const Scalar &a, int64_t bits) {
  Scalar c = a.constantI32(bits);
  return a.value().getType().isInteger(64) ? c.sextToI64() : c;
}
Scalar operator>>(const Scalar &a, int64_t bits) { return integer<arith::ShRUIOp>(a, shiftAmount(a, bits)); }
Scalar operator<<(const Scalar &a, int64_t bits) { return integer<arith::ShLIOp>(a, shiftAmount(a, bits)); }
Scalar exp(const Scalar &a) {
  if (!a.value().getType().isF32())
    throw std::invalid_argument("exp of a non-f32 scalar");
  return Scalar(&a.builder(), math::ExpOp::create(a.builder(), a.value().getLoc(), a.value()));
}
template <typename MathOp> static Scalar unaryF32(const char *name, const Scalar &a) {
  if (!a.value().getType().isF32())
    throw std::invalid_argument(std::string(name) + " of a non-f32 scalar");
  return Scalar(&a.builder(), MathOp::create(a.builder(), a.value().getLoc(), a.value()));
}
Scalar sqrt(const Scalar &a) { return unaryF32<math::SqrtOp>("sqrt", a); }
Scalar rsqrt(const Scalar &a) { return a.constantF32(1.0) / sqrt(a); }
Scalar copysign(const Scalar &a, const Scalar &b) {
  if (!a.value().getType().isF32() || !b.value().getType().isF32())
    throw std::invalid_argument("copysign of non-f32 scalars");
  return ((a.bitsAsI32() & a.constantI32(0x7FFFFFFF)) | (b.bitsAsI32() & b.constantI32(INT32_MIN))).bitsAsF32();
}
Scalar log(const Scalar &a) { return unaryF32<math::LogOp>("log", a); }
Scalar log1p(const Scalar &a) { return unaryF32<math::Log1pOp>("log1p", a); }
Scalar softplus(const Scalar &x) {
  // torch's softplus (beta 1, threshold 20): x itself above the threshold.
  return select(x > x.constantF32(20.0), x, log1p(exp(x)));
}
template <typename QuotientOp>
static Scalar logisticQuotient(const char *name, const Scalar &x, QuotientForm form) {
  if (!x.value().getType().isF32())
    throw std::invalid_argument(std::string(name) + " of a non-f32 scalar");
  OpBuilder &ob = x.builder();
  return Scalar(&ob, QuotientOp::create(ob, x.value().getLoc(), x.value().getType(), x.value(),
                                       form == QuotientForm::IeeeDiv ? tile::QuotientForm::ieee_div
                                                                     : tile::QuotientForm::fast));
}
Scalar silu(const Scalar &x, QuotientForm form) { return logisticQuotient<tile::SiluOp>("silu", x, form); }
Scalar sigmoid(const Scalar &x, QuotientForm form) { return logisticQuotient<tile::SigmoidOp>("sigmoid", x, form); }
Scalar fma(const Scalar &a, const Scalar &b, const Scalar &c) {
  if (!a.value().getType().isF32() || b.value().getType() != a.value().getType() ||
      c.value().getType() != a.value().getType())
    throw std::invalid_argument("fma of non-f32 scalars");
  return Scalar(&a.builder(), math::FmaOp::create(a.builder(), a.value().getLoc(), a.value(), b.value(), c.value()));
}
Scalar operator-(const Scalar &a) {
  if (!a.isFloat())
    throw std::invalid_argument("negation of an integer scalar");
  return Scalar(&a.builder(), arith::NegFOp::create(a.builder(), a.value().getLoc(), a.value()));
}
static Scalar compare(arith::CmpFPredicate fpred, arith::CmpIPredicate ipred, const Scalar &a, const Scalar &b) {
  if (a.value().getType() != b.value().getType())
    throw std::invalid_argument("comparison of differently typed scalars");
  OpBuilder &ob = a.builder();
  if (a.isFloat())
    return Scalar(&ob, arith::CmpFOp::create(ob, a.value().getLoc(), fpred, a.value(), b.value()));
  return Scalar(&ob, arith::CmpIOp::create(ob, a.value().getLoc(), ipred, a.value(), b.value()));
}
Scalar operator>(const Scalar &a, const Scalar &b) {
  return compare(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt, a, b);
}
Scalar operator<(const Scalar &a, const Scalar &b) {
  return compare(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt, a, b);
}
Scalar operator>=(const Scalar &a, const Scalar &b) {
  return compare(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge, a, b);
}
Scalar select(const Scalar &cond, const Scalar &a, const Scalar &b) {
  if (!cond.value().getType().isInteger(1) || a.value().getType() != b.value().getType())
    throw std::invalid_argument("select needs an i1 condition and operands of one type");
  return Scalar(&a.builder(), arith::SelectOp::create(a.builder(), a.value().getLoc(), cond.value(), a.value(), b.value()));
}
Scalar abs(const Scalar &a) {
  if (!a.isFloat())
    throw std::invalid_argument("abs of an integer scalar");
  return (a.bitsAsI32() & a.constantI32(0x7FFFFFFF)).bitsAsF32();
}

} // namespace tk::dsl
