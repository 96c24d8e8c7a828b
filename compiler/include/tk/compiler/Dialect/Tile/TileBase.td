//===- TileBase.td - the tile dialect, its types and attributes -*- tablegen -*-===//
#ifndef TK_TILE_BASE_TD
#define TK_TILE_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tk::tile";
  let summary = "Tiles, fragments and their layouts for fused GPU kernels";
  let description = [{
    The tile dialect describes a kernel as operations on whole tiles: a grid of
    blocks, each loading tiles of global tensors into fragments (register tiles
    distributed over the block's threads), computing on them elementwise and by
    reductions, and storing them back. Global tensors are upstream `memref`s with
    dynamic sizes and strides; shared-memory buffers are `memref`s in the GPU
    workgroup address space. Layouts (which thread holds which element) are
    attributes on the fragment type, assigned by `tile-assign-layouts` or by the
    kernel author.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // Kernel arguments carry the launcher's promises as `tile.align` (bytes)
  // and `tile.dim_multiples` (one multiple per dimension), checked here.
  let hasRegionArgAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"];
}

class Tile_Attr<string name, string mnemonic_, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = mnemonic_;
}

class Tile_Type<string name, string mnemonic_, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = mnemonic_;
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

def Tile_BlockedLayoutAttr : Tile_Attr<"BlockedLayout", "blocked"> {
  let summary = "Blocked distribution of a tile over the lanes and warps of a block";
  let description = [{
    Per dimension `d`: each thread owns `vec[d]` consecutive elements, `lanes[d]`
    lanes of a warp and `warps[d]` warps of the block tile the dimension, and the
    pattern repeats until the tile is covered. The last dimension varies fastest
    in the lane and warp numbering. The products of `lanes` and of `warps` must be
    32 and the block's warp count; every entry is a power of two.
      #tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [2, 2]>
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$vec,
                        ArrayRefParameter<"int64_t">:$lanes,
                        ArrayRefParameter<"int64_t">:$warps);
  let assemblyFormat = "`<` `vec` `=` `[` $vec `]` `,` `lanes` `=` `[` $lanes `]` `,` `warps` `=` `[` $warps `]` `>`";
  let genVerifyDecl = 1;
}

def Tile_ReducedLayoutAttr : Tile_Attr<"ReducedLayout", "reduced"> {
  let summary = "Layout of the result of a grouped reduction of a blocked tile";
  let description = [{
    The result of `tile.reduce` along `dim` in groups of `group` elements of a
    fragment laid out by `parent`: every thread that held an element of a group
    holds the group's reduced value (replicated). The parent is a blocked
    layout, or the reduced layout of a reduction along another dimension (a
    two-step reduction such as the absmax of a b x g block).
  }];
  let parameters = (ins "Attribute":$parent, "int64_t":$dim, "int64_t":$group);
  let assemblyFormat = "`<` qualified($parent) `,` `dim` `=` $dim `,` `group` `=` $group `>`";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Tile_FragmentType : Tile_Type<"Fragment", "frag"> {
  let summary = "A register tile distributed over the threads of a block";
  let description = [{
    A statically shaped tile held in registers. The optional layout says which
    thread holds which element; it is absent until layouts are assigned.
      !tile.frag<4x1024xf32>
      !tile.frag<4x1024xf32, #tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [2, 2]>>
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType,
                        "::mlir::Attribute":$layout);
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType), [{
      return $_get($_ctxt, shape, elementType, ::mlir::Attribute());
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The most elements a fragment may have (the verifier refuses more).
    static constexpr int64_t kMaxElements = int64_t(1) << 20;
    int64_t getRank() const { return getShape().size(); }
    int64_t getNumElements() const;
    FragmentType withLayout(::mlir::Attribute layout) const {
      return FragmentType::get(getContext(), getShape(), getElementType(), layout);
    }
    FragmentType withElementType(::mlir::Type type) const {
      return FragmentType::get(getContext(), getShape(), type, getLayout());
    }
  }];
}

def Tile_AnyFragment : Type<CPred<"::llvm::isa<::tk::tile::FragmentType>($_self)">,
                            "tile fragment", "::tk::tile::FragmentType">;

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

def Tile_ScheduleAttr : Tile_Attr<"Schedule", "schedule"> {
  let summary = "How a kernel asks to be compiled: choices that change its speed, never its results";
  let description = [{
    The kernel's own choices of code shape, each optional (a field left out
    takes the compiler's default). Kernels state them through the DSL
    (KernelBuilder::schedule); passes read them here, never from ad hoc
    attributes.
      tile.kernel @k(...) attributes {schedule = #tile.schedule<max_access_bytes = 8, transpose_rows = 8>, threads = 64 : i64}
    * `max_access_bytes` (4, 8 or 16; 0: the target's widest): caps each
      thread's contiguous global access; the default layouts then give a
      thread fewer values along the last dimension and more lanes across it.
    * `vector_elements` (1 to 64, a power of two or a multiple of 8; 0:
      derived): the values each thread holds consecutively along the last
      dimension in default layouts, instead of the target's access width
      in the kernel's widest main element.
    * `transpose_rows` (4, 8 or 16; 0: 4): consecutive rows a thread holds of
      a fragment it transposes (its transposed writes are vectors that long).
    * `reread_thread_index`: loops over tile ops read the thread index again
      at the top of each iteration, so that per-thread addresses are computed
      inside the loop instead of held in registers across it.
    * `min_blocks_per_sm` (0 to 32; 0: none, or a persistent grid's own):
      launch bounds (PTX .minnctapersm): ptxas keeps the registers per
      thread low enough for that many blocks on an SM at once.
    * `readonly_loads`: the tensors the kernel only reads are read-only,
      unaliased memory (llvm.readonly here, noalias in tile-noalias-params):
      NVPTX loads them through the non-coherent path (ld.global.nc) and
      LLVM may move their loads above stores. Off by default: ptxas spills
      registers in some kernels when it schedules those loads.
    * `warps_along_rows`: default layouts give warps to the first dimension
      first (lanes still to the last): a tile of several rows puts each row
      in its own warp where the rows allow, so that reductions along a row
      shuffle within the warp (no shared memory, no barrier). Without it a
      long row spreads over every warp of the block.
    * `dependent_launch` (0: none; 1 or 2): on sm_90 and newer the kernel
      may be launched while the kernel before it in the stream still runs,
      and waits for it before any other work (tile-dependent-launch): for
      the kernels of an operator of several short kernels, whose boundaries
      otherwise each cost a launch after the last block of the one before.
      1 also lets the kernel after it launch as soon as each of its blocks
      has started; 2 only once each has ended.
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "0">:$max_access_bytes,
                        DefaultValuedParameter<"int64_t", "0">:$vector_elements,
                        DefaultValuedParameter<"int64_t", "0">:$transpose_rows,
                        DefaultValuedParameter<"bool", "false">:$reread_thread_index,
                        DefaultValuedParameter<"int64_t", "0">:$min_blocks_per_sm,
                        DefaultValuedParameter<"bool", "false">:$readonly_loads,
                        DefaultValuedParameter<"bool", "false">:$warps_along_rows,
                        DefaultValuedParameter<"int64_t", "0">:$dependent_launch);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tile_QuotientForm : I32EnumAttr<"QuotientForm", "how a logistic quotient is divided", [
    I32EnumAttrCase<"fast", 0>, I32EnumAttrCase<"ieee_div", 1>]> {
  let cppNamespace = "::tk::tile";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"absmax", 3>]> {
  let cppNamespace = "::tk::tile";
}

#endif
