//===- ComputeOps.td - computation on fragments and scalar math -*- tablegen -*-===//
#ifndef TK_TILE_COMPUTE_OPS_TD
#define TK_TILE_COMPUTE_OPS_TD

include "tk/compiler/Dialect/Tile/TileOpBase.td"

def Tile_ParallelOp : Tile_Op<"parallel", [Pure, SingleBlockImplicitTerminator<"YieldOp">, Tile_ElementwiseLayouts]> {
  let summary = "An elementwise region over fragments of one shape";
  let description = [{
    The body runs once per element, on the elements of the inputs at that
    position, and yields the result element.
      %y = tile.parallel %a, %b : (!tile.frag<4x1024xf32>, !tile.frag<4x1024xf32>) -> !tile.frag<4x1024xf32> {
      ^bb0(%u: f32, %v: f32):
        %p = arith.mulf %u, %v : f32
        tile.yield %p : f32
      }
  }];
  let arguments = (ins Variadic<Tile_AnyFragment>:$inputs);
  let results = (outs Tile_AnyFragment:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, $result) $body";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure, Tile_LayoutRules<["inferResultLayout"]>]> {
  let summary = "Reduces a fragment along one dimension, in groups";
  let description = [{
    Combines the elements along `dim` in consecutive groups of `group` elements
    (the whole dimension when `group` equals its size); the result has
    `size / group` elements along `dim`. `absmax` is the maximum of absolute
    values. The combination order is fixed, so results are deterministic.
      %m = tile.reduce absmax %t {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x1024xf32> -> !tile.frag<4x8xf32>
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_AnyFragment:$input, I64Attr:$dim, I64Attr:$group);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$kind $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, Tile_ElementwiseLayouts]> {
  let summary = "Prefix sums of an integer fragment along one dimension";
  let description = [{
    result[.., i, ..] = the sum of input[.., j, ..] over j <= i along `dim`
    (j < i with `exclusive`, so the first element is 0), in the input's
    integer type (wrapping). Integers only: their sums do not depend on the
    order, so any combination order gives the same result (counts turned
    into positions: histograms, expert segments).
      %p = tile.scan %c {dim = 0 : i64, exclusive} : !tile.frag<128x32xi32> -> !tile.frag<128x32xi32>
  }];
  let arguments = (ins Tile_AnyFragment:$input, I64Attr:$dim, UnitAttr:$exclusive);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_CountEqualOp : Tile_Op<"count_equal", [Pure, Tile_ElementwiseLayouts]> {
  let summary = "For each element, how many elements of its line hold an equal key";
  let description = [{
    result[.., i, ..] (i32) = the number of j along `dim` with
    keys[.., j, ..] == keys[.., i, ..] (the element itself included); with
    `before`, only the j < i: the element's stable rank among its equals.
    Integer keys. Ranks give equal keys consecutive, ascending positions
    (a stable counting sort: MoE slots into expert segments); counts tell
    the first of a run (rank 0) how far to move a shared cursor.
      %r = tile.count_equal %k {dim = 1 : i64, before} : !tile.frag<8x32xi32> -> !tile.frag<8x32xi32>
  }];
  let arguments = (ins Tile_AnyFragment:$keys, I64Attr:$dim, UnitAttr:$before);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$keys attr-dict `:` qualified(type($keys)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_ExpandOp : Tile_Op<"expand", [Pure, Tile_LayoutRules<["hintOperandLayouts", "inferResultLayout", "requiredOperandLayout"]>]> {
  let summary = "Broadcasts each element over a group along one dimension";
  let description = [{
    The inverse shape change of a grouped `tile.reduce`: element `i` along `dim`
    is repeated `group` times.
      %e = tile.expand %m {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x8xf32> -> !tile.frag<4x1024xf32>
  }];
  let arguments = (ins Tile_AnyFragment:$input, I64Attr:$dim, I64Attr:$group);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_ConvertOp : Tile_Op<"convert", [Pure, Tile_ElementwiseLayouts]> {
  let summary = "Converts the element type of a fragment";
  let description = [{
    Widening float conversions are exact. Narrowing to bf16/f16/f32 rounds to
    nearest even. Narrowing to f8E4M3FN rounds to nearest even on the e4m3 grid
    and saturates: finite values beyond 448 and infinities give +-448, NaN gives
    0x7F.
      %q = tile.convert %t : !tile.frag<4x1024xf32> -> !tile.frag<4x1024xf8E4M3FN>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure, Tile_LayoutRules<["hintOperandLayouts", "inferResultLayout"]>]> {
  let summary = "Swaps the last two dimensions of a fragment";
  let description = [{
    `result[..., j, i] = input[..., i, j]`. On the GPU the elements move
    through a padded shared-memory buffer, so input and result may have any
    layouts.
      %t = tile.transpose %x : !tile.frag<1x64x32xbf16> -> !tile.frag<1x32x64xbf16>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_DotOp : Tile_Op<"dot", [Pure, Tile_LayoutRules<["hintOperandLayouts", "inferResultLayout"]>]> {
  let summary = "Matrix product of two fragments on tensor cores, in f32";
  let description = [{
    `result[m, n] = acc[m, n] + sum over k of lhs[m, k] * rhs[k, n]` for an
    [M, K] and a [K, N] fragment of f32 or bf16 elements (each its own), in
    f32; without `acc` the sum starts from zero. Both bf16: the bf16
    tensor-core product (mma.sync m16n8k16; K a multiple of 16). Otherwise
    TF32 (m16n8k8; K a multiple of 8): an f32 operand is rounded to TF32
    first, `bits = (bits + 0x1000) & ~0x1FFF` (to nearest, ties away from
    zero in magnitude, as the spec's tf32r), and a bf16 one is exact in TF32.
    Every product is then exact in f32. M is a multiple of 16 and N of 8.
    The tensor core adds one instruction's products (and the accumulator)
    in an order of its own, so a result may differ in its last bits from
    the CPU path's, which adds the products one f32 add at a time in order
    of k, starting from `acc`.

    On the GPU, with `acc` and M a multiple of 16 times the kernel's warps,
    layout inference asks for the lhs and `acc` in mma.sync's own fragment
    layouts (lanes [8, 4], warps along rows): the lhs feeds the tensor core
    from registers, the accumulator stays in them (a loop that carries it
    keeps it there), and only the rhs passes through shared memory.
    Otherwise both operands pass through shared memory (any layouts), each
    warp runs mma.sync on 16 x 8 tiles of the product, and `acc` is added
    to the product as it is read back in the result's layout. With
    `rhs_transposed` the rhs is given as its [N, K] transpose (the DSL's
    dot(a, transpose(b)) builds this form): no exchange of its elements
    between threads first.

    `warpgroup` asks for wgmma where the target has it (sm_90a) and the
    product runs from registers with a transposed f32 rhs and the kernel's
    warps a multiple of 4: each warpgroup of four warps issues m64nNk8 on
    its lhs fragments (the same registers mma.sync would take) and the
    tensor core reads the rhs, rounded to TF32 as it is staged, from shared
    memory itself instead of every warp loading its fragments. Elsewhere
    (another target, other layouts) it is ignored: mma.sync, with a remark
    saying why. The sums may differ from mma.sync's in their last bits.
      %c = tile.dot %a, %b : !tile.frag<16x32xbf16>, !tile.frag<32x8xf32> -> !tile.frag<16x8xf32>
      %d = tile.dot %a, %w {rhs_transposed} : !tile.frag<16x32xbf16>, !tile.frag<8x32xf32> -> !tile.frag<16x8xf32>
      %e = tile.dot %a, %b acc(%d : !tile.frag<16x8xf32>) : !tile.frag<16x32xbf16>, !tile.frag<32x8xf32> -> !tile.frag<16x8xf32>
  }];
  let arguments = (ins Tile_AnyFragment:$lhs, Tile_AnyFragment:$rhs, Optional<Tile_AnyFragment>:$acc,
                       UnitAttr:$rhs_transposed, UnitAttr:$warpgroup);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`acc` `(` $acc^ `:` qualified(type($acc)) `)`)? attr-dict `:` qualified(type($lhs)) `,`
    qualified(type($rhs)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Both operands bf16: the bf16 product (k = 16 per instruction); else TF32 (k = 8).
    bool isBf16() {
      return ::llvm::isa<::mlir::BFloat16Type>(getLhs().getType().getElementType()) &&
             ::llvm::isa<::mlir::BFloat16Type>(getRhs().getType().getElementType());
    }
    int64_t kStep() { return isBf16() ? 16 : 8; }
    /// N: the rhs's columns, or its rows when it is given transposed.
    int64_t numColumns() { return getRhs().getType().getShape()[getRhsTransposed() ? 0 : 1]; }
  }];
}

def Tile_RelayoutOp : Tile_Op<"relayout", [Pure, Tile_LayoutRules<["inferResultLayout"]>]> {
  let summary = "Moves a fragment into another layout through shared memory";
  let description = [{
    The same elements, held as the result's layout says. On the GPU every
    thread writes its elements to a shared-memory buffer of the fragment's
    shape, the block synchronizes and every thread reads the elements of the
    result layout (then synchronizes again, so the buffer can be reused). The
    CPU lowering forwards the value. Kernels rarely need it: layout inference
    (tile-assign-layouts) gives producers the layouts their users want; the
    DSL's relayout() is for a fragment needed in two layouts (a reduction's
    replicated result that is also scattered), its result's layout left to
    inference (the hint of its users, else the default). Its ablations insert it: `infer=false` where an op's operand has another
    layout than the op needs, tile-materialize-intermediates (the ablation of
    fusion) after every computed fragment, to its own layout.
      %r = tile.relayout %s : !tile.frag<4x8xf32, #tile.blocked<...>> -> !tile.frag<4x8xf32, #tile.reduced<...>>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

class Tile_LogisticQuotientOp<string mnemonic, string formula> :
    Tile_Op<mnemonic, [Pure, Elementwise, AllTypesMatch<["x", "result"]>]> {
  let arguments = (ins AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>:$x,
                       DefaultValuedAttr<Tile_QuotientForm, "::tk::tile::QuotientForm::fast">:$form);
  let results = (outs AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>:$result);
  let assemblyFormat = "$x (`form` $form^)? attr-dict `:` type($x)";
}

def Tile_SiluOp : Tile_LogisticQuotientOp<"silu", "x / (1 + e^-x)"> {
  let summary = "x / (1 + e^-x) in f32, each step rounded (the SiLU of SwiGLU)";
  let description = [{
    Exactly fl(x / fl(1 + exp(-x))): `exp` is `math.exp` (on the GPU CUDA's
    accurate device `expf`, on the CPU the C library's), the addition and the
    division are correctly rounded. How the division is carried out is the
    lowering's choice where it is proven exact (tile-logistic-quotients: a
    multiply-and-correct sequence on targets where it was checked against
    `div.rn.f32` for every f32 input); `form ieee_div` asks for `div.rn.f32`
    always (the same value, for kernels measured faster with it). Used in
    `tile.parallel` bodies, on scalars; the GPU lowering applies it to
    per-thread vectors.
      %s = tile.silu %x : f32
      %s = tile.silu %x form ieee_div : f32
  }];
}

def Tile_SigmoidOp : Tile_LogisticQuotientOp<"sigmoid", "1 / (1 + e^-x)"> {
  let summary = "1 / (1 + e^-x) in f32, each step rounded (the logistic sigmoid)";
  let description = [{
    Exactly fl(1 / fl(1 + exp(-x))), with `exp` and the division as for
    `tile.silu`. A silu and a sigmoid of the same x share 1 + e^-x and, where
    the multiply-and-correct form is used, its reciprocal.
      %s = tile.sigmoid %x : f32
  }];
}

#endif
