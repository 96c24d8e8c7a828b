//===- Values.h - handles the DSL computes with ----------------------------===//
//
//   Index  - a block-uniform index (block indices, tile origins)
//   Tensor - a global tensor argument of the kernel
//   Shared - a tile buffer in shared memory
//   Tile   - a fragment: a tile held in registers, distributed over threads
//   Scalar - one element inside an elementwise region (map)
//   Total  - a block total of a grid (gridWithTotals), after the grid
// Each wraps an mlir::Value and the builder that made it; operators build IR.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/dsl/DType.h"
#include "tk/dsl/Signature.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <functional>
#include <vector>

namespace tk::dsl {

class KernelBuilder;

/// Where in a kernel author's source a DSL call was made. DSL functions take
/// it as their last argument, defaulted to the caller's file and line (GCC
/// and Clang evaluate __builtin_FILE/LINE in a default argument where the
/// call is written): their errors name it, and the ops they create carry it
/// as their location, so that the compiler's diagnostics name it too. An
/// empty one (the DSL's own calls) keeps the enclosing call's line.
struct SourceLine {
  const char *file = nullptr;
  int line = 0;
  static SourceLine here(const char *file = __builtin_FILE(), int line = __builtin_LINE()) { return {file, line}; }
};

class Index {
public:
  Index(KernelBuilder *k, mlir::Value v) : k_(k), v_(v) {}
  mlir::Value value() const { return v_; }
  KernelBuilder *builder() const { return k_; }
  friend Index operator*(const Index &a, int64_t c);
  friend Index operator*(const Index &a, const Index &b);
  friend Index operator+(const Index &a, int64_t c);
  friend Index operator+(const Index &a, const Index &b);
  /// a - c, a - b: the author keeps them non-negative (an index is unsigned:
  /// a negative difference addresses far past any tensor's end).
  friend Index operator-(const Index &a, int64_t c);
  friend Index operator-(const Index &a, const Index &b);
  /// Unsigned division and remainder (block-uniform indices are never negative).
  friend Index operator/(const Index &a, int64_t c);
  friend Index operator%(const Index &a, int64_t c);

private:
  KernelBuilder *k_;
  mlir::Value v_;
};

class Tensor {
public:
  Tensor(KernelBuilder *k, int argIndex) : k_(k), arg_(argIndex) {}
  const TensorParam &param() const;
  mlir::Value value() const;
  KernelBuilder *builder() const { return k_; }

private:
  KernelBuilder *k_;
  int arg_;
};

/// A scalar argument of the kernel (KernelBuilder::scalarInput): one value
/// for the whole launch, usable inside map bodies (Scalar::uniform).
class Uniform {
public:
  Uniform(KernelBuilder *k, int argIndex, DType dtype) : k_(k), arg_(argIndex), dtype_(dtype) {}
  mlir::Value value() const;
  DType dtype() const { return dtype_; }

private:
  KernelBuilder *k_;
  int arg_;
  DType dtype_;
};

/// A block-wide tile buffer in shared memory (KernelBuilder::shared).
class Shared {
public:
  Shared(mlir::Value v, std::vector<int64_t> shape, DType dtype) : v_(v), shape_(std::move(shape)), dtype_(dtype) {}
  mlir::Value value() const { return v_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  DType dtype() const { return dtype_; }

private:
  mlir::Value v_;
  std::vector<int64_t> shape_;
  DType dtype_;
};

/// A block total: the sum of a tile the grid body returned over the tiles
/// a block ran, usable after the grid (KernelBuilder::gridWithTotals).
class Total {
public:
  Total(mlir::Value v, DType dtype) : v_(v), dtype_(dtype) {}
  mlir::Value value() const { return v_; }
  DType dtype() const { return dtype_; }

private:
  mlir::Value v_;
  DType dtype_;
};

/// How the division of silu() and sigmoid() is carried out: both forms give
/// the same, correctly rounded value.
enum class QuotientForm {
  Fast,    ///< the compiler's choice: a multiply-and-correct sequence where it is proven exact
  IeeeDiv, ///< div.rn.f32 always (for a kernel measured faster with it)
};

class Scalar {
public:
  Scalar(mlir::OpBuilder *b, mlir::Value v) : b_(b), v_(v) {}
  mlir::Value value() const { return v_; }
  mlir::OpBuilder &builder() const { return *b_; }
  bool isFloat() const;

  Scalar constantF32(double c) const;
  Scalar constantI32(int64_t c) const;
  Scalar constantI64(int64_t c) const;
  /// Zero of `dtype` (integers, floats: all bits clear).
  Scalar zero(DType dtype) const;
  /// The launch's value of a scalar argument, here.
  Scalar uniform(const Uniform &u) const { return Scalar(b_, u.value()); }
  /// A block-uniform index (a tile origin, a tensor's extent) here, as i32.
  Scalar index(const Index &i) const;
  /// Widens a float to f32 (exact); f32 stays as it is.
  Scalar toF32() const;
  /// Reinterpret the bits (f32 <-> i32).
  Scalar bitsAsI32() const;
  Scalar bitsAsF32() const;
  /// The low 8 bits of an integer.
  Scalar truncToI8() const;
  /// An 8-bit integer zero-extended to i32.
  Scalar zextToI32() const;
  /// i32 -> i64, sign-extended.
  Scalar sextToI64() const;
  /// i64 -> i32, the low 32 bits (two's complement wrap).
  Scalar truncToI32() const;
  /// A signed integer as f32, rounded to nearest even (exact below 2^24).
  Scalar signedToF32() const;
  /// f32 -> i32 rounded toward zero, as C's cast (values outside the i32
  /// range and NaN have no defined result: check them first).
  Scalar f32ToI32() const;

  friend Scalar operator+(const Scalar &a, const Scalar &b);
  friend Scalar operator-(const Scalar &a, const Scalar &b);
  friend Scalar operator*(const Scalar &a, const Scalar &b);
  /// IEEE division for floats (correctly rounded), unsigned for integers.
  friend Scalar operator/(const Scalar &a, const Scalar &b);
  friend Scalar operator&(const Scalar &a, const Scalar &b);
  friend Scalar operator|(const Scalar &a, const Scalar &b);
  /// Logical shifts of integers.
  friend Scalar operator>>(const Scalar &a, int64_t bits);
  friend Scalar operator<<(const Scalar &a, int64_t bits);
  /// max ignoring NaN for floats, signed for integers.
  friend Scalar max(const Scalar &a, const Scalar &b);
  friend Scalar min(const Scalar &a, const Scalar &b);
  friend Scalar abs(const Scalar &a);
  /// e^a (f32). On the GPU this is CUDA's accurate device `expf`, bit for bit;
  /// on the CPU path the C library's `expf` (the two differ by up to 2 ulp).
  friend Scalar exp(const Scalar &a);
  /// sqrt (f32), correctly rounded on both paths (sqrt.rn on the GPU).
  friend Scalar sqrt(const Scalar &a);
Scalar rsqrt(const Scalar &a);
Scalar copysign(const Scalar &a, const Scalar &b);
  /// 1 / sqrt(a) (f32), both steps correctly rounded (not rsqrt.approx):
  /// the same bits on the GPU and the CPU path, within 1 ulp of the exact.
  friend Scalar rsqrt(const Scalar &a);
  /// |a| with the sign bit of b (f32; copysign(x, -0.0) is -|x|): bit
  /// operations, exact on both paths.
  friend Scalar copysign(const Scalar &a, const Scalar &b);
  /// ln a and ln(1 + a) (f32) as arithmetic (tile-approximate-math),
  /// the same operations on the GPU and the CPU path, so the same bits there;
  /// within 1 ulp of the exact value, not the bits of CUDA's logf / log1pf.
  friend Scalar log(const Scalar &a);
  friend Scalar log1p(const Scalar &a);
  /// torch's softplus: x above 20, else log1p(e^x) (exp as above).
  friend Scalar softplus(const Scalar &x);
  /// x / (1 + e^-x) (f32, SiLU) and 1 / (1 + e^-x) (the sigmoid), every
  /// step rounded as written (tile.silu, tile.sigmoid): the same value as
  /// `x / (one + exp(-x))`, but the compiler knows the quotient and may
  /// divide it without div.rn.f32's slow-path branch. A silu and a sigmoid
  /// of the same x share 1 + e^-x.
  friend Scalar silu(const Scalar &x, QuotientForm form);
  friend Scalar sigmoid(const Scalar &x, QuotientForm form);
  /// a * b + c with one rounding (f32).
  friend Scalar fma(const Scalar &a, const Scalar &b, const Scalar &c);
  friend Scalar operator-(const Scalar &a);
  /// Comparisons (ordered for floats, signed for integers): an i1 scalar.
  /// Floats compare as IEEE: +0 == -0, and != is true when either is NaN
  /// (as in C); the others are false with a NaN.
  friend Scalar operator>(const Scalar &a, const Scalar &b);
  friend Scalar operator<(const Scalar &a, const Scalar &b);
  friend Scalar operator>=(const Scalar &a, const Scalar &b);
  friend Scalar operator<=(const Scalar &a, const Scalar &b);
  friend Scalar operator==(const Scalar &a, const Scalar &b);
  friend Scalar operator!=(const Scalar &a, const Scalar &b);
  /// Logical not of an i1; xor of integers (i1 included).
  friend Scalar operator!(const Scalar &a);
  friend Scalar operator^(const Scalar &a, const Scalar &b);
  /// Signed integer division and remainder, truncating toward zero as C's
  /// / and % (the divisor must not be 0, nor -1 with the type's minimum).
  friend Scalar divs(const Scalar &a, const Scalar &b);
  friend Scalar rems(const Scalar &a, const Scalar &b);
  /// The remainder with the divisor's sign (Python's a % b, floor division's).
  friend Scalar floormod(const Scalar &a, const Scalar &b);
  /// The high half of the unsigned product a b (both of one integer type):
  /// with a shift, a division by a divisor known at launch (kernels/common/
  /// division_magic.h) without the hardware division's subroutine.
  friend Scalar mulhiu(const Scalar &a, const Scalar &b);
  /// Logical shift right by a scalar amount of the same type (below its width).
  friend Scalar shru(const Scalar &a, const Scalar &bits);
  /// The number of set bits of an integer, in its type.
  friend Scalar popcount(const Scalar &a);
  /// cond ? a : b for an i1 `cond`.
  friend Scalar select(const Scalar &cond, const Scalar &a, const Scalar &b);

private:
  mlir::OpBuilder *b_;
  mlir::Value v_;
};

Scalar divs(const Scalar &a, const Scalar &b);
Scalar rems(const Scalar &a, const Scalar &b);
Scalar floormod(const Scalar &a, const Scalar &b);
Scalar mulhiu(const Scalar &a, const Scalar &b);
Scalar shru(const Scalar &a, const Scalar &bits);
Scalar popcount(const Scalar &a);
Scalar sqrt(const Scalar &a);
Scalar log(const Scalar &a);
Scalar log1p(const Scalar &a);
Scalar softplus(const Scalar &x);
Scalar silu(const Scalar &x, QuotientForm form = QuotientForm::Fast);
Scalar sigmoid(const Scalar &x, QuotientForm form = QuotientForm::Fast);

class Tile {
public:
  Tile(KernelBuilder *k, mlir::Value v) : k_(k), v_(v) {}
  mlir::Value value() const { return v_; }
  KernelBuilder *builder() const { return k_; }
  std::vector<int64_t> shape() const;
  DType dtype() const;

  /// Element type conversion (f8 e4m3 saturates, see tile.convert).
  Tile to(DType type) const;

  friend Tile operator+(const Tile &a, const Tile &b);
  friend Tile operator-(const Tile &a, const Tile &b);
  friend Tile operator*(const Tile &a, const Tile &b);
  friend Tile operator/(const Tile &a, const Tile &b);
  /// A number on either side: a constant of the tile's element type (f32,
  /// or i32 / i64 for an integral c; others: convert the tile first).
  friend Tile operator+(const Tile &a, double c);
  friend Tile operator-(const Tile &a, double c);
  friend Tile operator*(const Tile &a, double c);
  friend Tile operator/(const Tile &a, double c);
  friend Tile operator+(double c, const Tile &a);
  friend Tile operator-(double c, const Tile &a);
  friend Tile operator*(double c, const Tile &a);
  friend Tile operator/(double c, const Tile &a);

private:
  KernelBuilder *k_;
  mlir::Value v_;
};

/// One elementwise region over tiles of one shape: `body` receives one Scalar
/// per input and returns the result element (of type `result`).
Tile map(const std::vector<Tile> &inputs, DType result,
         const std::function<Scalar(const std::vector<Scalar> &)> &body, SourceLine where = SourceLine::here());

/// Reductions along `dim` in consecutive groups of `group` elements (0: the
/// whole dimension). The result has size/group elements along `dim`.
Tile reduce_sum(const Tile &t, int64_t dim, int64_t group = 0, SourceLine where = SourceLine::here());
Tile reduce_max(const Tile &t, int64_t dim, int64_t group = 0, SourceLine where = SourceLine::here());
Tile reduce_absmax(const Tile &t, int64_t dim, int64_t group = 0, SourceLine where = SourceLine::here());
Tile reduce_min(const Tile &t, int64_t dim, int64_t group = 0, SourceLine where = SourceLine::here());
/// Prefix sums of an integer tile along `dim` (tile.scan): element i is the
/// sum of the elements before it (exclusive) or up to it (inclusive).
Tile scan_sum(const Tile &t, int64_t dim, bool exclusive = false);
/// For each element of an integer tile, how many elements along `dim` hold
/// an equal value (tile.count_equal), i32: all of them, or with `before`
/// only those before it (its stable rank among equal keys).
Tile count_equal(const Tile &keys, int64_t dim, bool before = false);
/// Elementwise min and max (Scalar's: NaN ignored for floats, signed for
/// integers), abs, and clamp(t, lo, hi) = min(max(t, lo), hi).
Tile min(const Tile &a, const Tile &b);
Tile max(const Tile &a, const Tile &b);
Tile min(const Tile &a, double c);
Tile max(const Tile &a, double c);
Tile min(double c, const Tile &a);
Tile max(double c, const Tile &a);
Tile abs(const Tile &a);
Tile clamp(const Tile &a, double lo, double hi);
/// The matrix product of an [M, K] and a [K, N] tile on tensor cores, in
/// f32 (tile.dot): bf16 x bf16 as bf16 products (K a multiple of 16), else
/// TF32, an f32 operand rounded to TF32 first (K a multiple of 8); M a
/// multiple of 16, N of 8. The GPU adds each instruction's products in the
/// tensor core's order: results may differ from the CPU path's in the last bits.
Tile dot(const Tile &a, const Tile &b, SourceLine where = SourceLine::here());
/// acc + dot(a, b), the products added to the [M, N] f32 accumulator by the
/// tensor core itself (a loop that carries acc keeps it in registers: with M
/// a multiple of 16 x the kernel's warps, the product runs from registers
/// and only b goes through shared memory; in a one-warp kernel, a b given as
/// transpose(w) is loaded straight into the tensor core's registers).
Tile dot(const Tile &a, const Tile &b, const Tile &acc, SourceLine where = SourceLine::here());
/// Which tensor-core instructions a dot may take on the GPU.
enum class DotEngine {
  Warp,      ///< mma.sync, each warp on its own 16-row tiles (every target)
  Warpgroup, ///< wgmma where the target has it (sm_90a) and the product runs from registers as TF32 with b given
             ///< as transpose(w) and the warps a multiple of 4: the tensor core reads b from shared memory itself;
             ///< elsewhere mma.sync (tile.dot's `warpgroup`)
};
/// acc + dot(a, b) on `engine`'s instructions.
Tile dot(const Tile &a, const Tile &b, const Tile &acc, DotEngine engine, SourceLine where = SourceLine::here());
/// Swaps the last two dimensions: result[..., j, i] = t[..., i, j].
Tile transpose(const Tile &t, SourceLine where = SourceLine::here());
/// The same tile, held as its users want it (tile.relayout: through shared
/// memory). Layout inference gives producers their users' layouts, so a
/// kernel needs it only where one fragment must be held two ways: e.g. a
/// reduction's result (replicated across the threads that reduced it) that
/// is also scattered, which wants each element held by one thread.
Tile relayout(const Tile &t, SourceLine where = SourceLine::here());
/// Repeats every element `group` times along `dim` (undoes a grouped reduce's shape).
Tile expand(const Tile &t, int64_t dim, int64_t group, SourceLine where = SourceLine::here());
/// FP4 (E2M1) codes of an f32 tile, two per byte along the last dimension
/// (element 2i in the low nibble): the result is i8 with half the last dimension.
Tile pack_e2m1(const Tile &t);
/// f32 values of an i8 tile of packed FP4 (E2M1) codes: twice the last dimension.
Tile unpack_e2m1(const Tile &t);
/// e4m3(decode(code) * 2^shift) per value, exact for shifts in [-5, 6]:
/// FP4 codes (i8, two per byte as unpack_e2m1 reads them) scaled by powers
/// of two (i32 shifts, one per value), without decoding them to f32.
Tile e2m1_to_e4m3(const Tile &codes, const Tile &shift);
/// E5M6 codes of an f32 tile, 8 per 3 little-endian words (12 bytes) along the
/// last dimension: the result is i8 with 3/2 times the last dimension.
Tile pack_e5m6(const Tile &t);
/// f32 values of packed E5M6 codes (the inverse of pack_e5m6): 12 bytes -> 8 values.
Tile unpack_e5m6(const Tile &t);

} // namespace tk::dsl
