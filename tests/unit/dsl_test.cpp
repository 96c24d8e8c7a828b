// The DSL: symbolic sizes, kernel building, misuse errors.
#include "kernels/quant/per_channel_cast.h"
#include "kernels/quant/per_token_cast.h"
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Registration.h"
#include "tk/dsl/KernelBuilder.h"

#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace tk::dsl;

namespace {

struct Ctx {
  mlir::MLIRContext ctx;
  Ctx() {
    mlir::DialectRegistry registry;
    tk::compiler::registerDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
};

TEST(Dim, FoldsStaticAndEvaluatesSymbols) {
  Dim tokens = Dim::symbol("num_tokens");
  Dim blocks = ceil_div(tokens, 4);
  EXPECT_FALSE(blocks.isStatic());
  EXPECT_EQ(blocks.evaluate({{"num_tokens", 4001}}), 1001);
  EXPECT_EQ(blocks.str(), "ceil_div(num_tokens, 4)");
  Dim k = ceil_div(Dim(7168), Dim(1024));
  EXPECT_TRUE(k.isStatic());
  EXPECT_EQ(k.staticValue(), 7);
  EXPECT_THROW(blocks.evaluate({}), std::out_of_range);
}

TEST(KernelBuilder, PerTokenCastReadsLikeItsMath) {
  Ctx c;
  tk::kernels::quant::PerTokenCastConfig config{7168, 128, DType::BF16, true};
  EXPECT_EQ(config.tileK(), 1024);
  EXPECT_EQ(config.tileM(), 2); // 2048 bf16 elements per block
  BuiltKernel k = tk::kernels::quant::buildPerTokenCast(c.ctx, config);
  std::map<std::string, int> ops;
  k.module->walk([&](mlir::Operation *op) { ++ops[op->getName().getStringRef().str()]; });
  EXPECT_EQ(ops["tile.kernel"], 1);
  EXPECT_EQ(ops["tile.grid"], 1);
  EXPECT_EQ(ops["tile.load"], 1);
  EXPECT_EQ(ops["tile.reduce"], 1);
  EXPECT_EQ(ops["tile.expand"], 1);
  EXPECT_EQ(ops["tile.store"], 2);
  EXPECT_EQ(ops["tile.convert"], 2);
  // Signature: three tensors, num_tokens bound from x, grid over it.
  ASSERT_EQ(k.signature.tensors.size(), 3u);
  EXPECT_EQ(k.signature.tensors[0].strides[0], kDynamicStride);
  EXPECT_EQ(k.signature.tensors[1].strides[0], 7168);
  EXPECT_EQ(k.signature.grid[0].evaluate({{"num_tokens", 8001}}), 4001);
  EXPECT_EQ(k.signature.grid[1].evaluate({}), 7);
}

// Rows per block of per_token_cast (PerTokenCastConfig::tileM), the
// schedule the H200 measurements chose: what each input and output gets.
TEST(PerTokenCastSchedule, RowsPerBlockFollowTheMeasuredRules) {
  using tk::kernels::quant::Format;
  using tk::kernels::quant::PerTokenCastConfig;
  auto rows = [](int64_t k, int64_t g, DType in, Format out = Format::E4M3) {
    PerTokenCastConfig c{k, g, in, true};
    c.out = out;
    return c.tileM();
  };
  EXPECT_EQ(rows(7168, 128, DType::BF16), 2);  // 2 x 1024: 2048 elements
  EXPECT_EQ(rows(7168, 7168, DType::BF16), 2); // a whole row of bf16: two per block
  EXPECT_EQ(rows(7168, 7168, DType::F32), 1);  // f32: one (two were slower)
  EXPECT_EQ(rows(2048, 2048, DType::BF16), 2);
  EXPECT_EQ(rows(576, 576, DType::BF16), 2);
  EXPECT_EQ(rows(7168, 32, DType::BF16, Format::E2M1), 8); // e2m1: 8 x 1024
  EXPECT_EQ(rows(576, 32, DType::BF16, Format::E2M1), 32); // 64-column tiles keep 2048 elements
  EXPECT_EQ(rows(7168, 32, DType::F32, Format::E2M1), 4);  // f32: 4096 elements
  EXPECT_EQ(rows(7168, 7168, DType::BF16, Format::E5M6), 2);
}

// Tiles, threads and pipelines of the per-channel casts
// (PerChannelCastConfig), the schedule the H200 measurements chose.
TEST(PerChannelCastSchedule, DefaultsFollowTheMeasuredRules) {
  using tk::kernels::quant::PerChannelCastConfig;
  auto config = [](int64_t k, DType in) {
    PerChannelCastConfig c;
    c.hidden = k, c.in = in;
    return c;
  };
  // A quantized input: one staged 128 x 256 tile per 256-thread CTA, its
  // multipliers in the same stage (190.0 -> 137.7 us).
  PerChannelCastConfig e4m3 = config(7168, DType::F8E4M3);
  EXPECT_TRUE(e4m3.oneStagedTile());
  EXPECT_EQ(e4m3.tileM(), 128);
  EXPECT_EQ(e4m3.tileK(), 256);
  EXPECT_EQ(e4m3.numThreads(), 256);
  EXPECT_EQ(e4m3.stages(), 1);
  EXPECT_EQ(e4m3.tiles(), 1);
  EXPECT_TRUE(e4m3.reloads());
  EXPECT_EQ(e4m3.maxAccess(), 8);
  EXPECT_EQ(e4m3.stageBytes(), 128 * 256 + 128 * 2 * 4); // codes + two multipliers per row
  // K not a multiple of 256: 128-column tiles, one multiplier per row.
  PerChannelCastConfig narrow = config(2176, DType::F8E4M3);
  EXPECT_EQ(narrow.tileK(), 128);
  EXPECT_EQ(narrow.stageBytes(), 128 * 128 + 128 * 4);
  // bf16: the same structure at 128 x 128.
  PerChannelCastConfig bf16 = config(7168, DType::BF16);
  EXPECT_EQ(bf16.tileK(), 128);
  EXPECT_EQ(bf16.numThreads(), 256);
  EXPECT_EQ(bf16.stages(), 1);
  EXPECT_EQ(bf16.stageBytes(), 128 * 128 * 2);
  // The row gather (data-dependent rows) is not pipelined: 128 x 64 tiles,
  // read again from global memory.
  PerChannelCastConfig gather = config(7168, DType::F8E4M3);
  gather.rowGather = true;
  EXPECT_FALSE(gather.oneStagedTile());
  EXPECT_EQ(gather.tileK(), 64);
  EXPECT_EQ(gather.stages(), 0);
  EXPECT_TRUE(gather.reloads());
  // f32 keeps the register-resident kernel.
  PerChannelCastConfig f32 = config(7168, DType::F32);
  EXPECT_FALSE(f32.oneStagedTile());
  EXPECT_EQ(f32.stages(), 0);
  // The transposed cast at b = 128: register-resident (196.1 -> 189.5 us);
  // its SwiGLU form keeps 2 stages, of 16 tiles (one tile per CTA was
  // slower; 16 tiles against 8, 450.8 -> 448.0 us), and reads the thread
  // index again in its loop; the non-transposed b = 32 form keeps 8 tiles
  // and the entry's thread index.
  PerChannelCastConfig transposed = config(7168, DType::BF16);
  transposed.transposed = true;
  EXPECT_FALSE(transposed.oneStagedTile());
  EXPECT_FALSE(transposed.reloads());
  EXPECT_EQ(transposed.stages(), 0);
  // The plain transposed casts hold 8 rows per thread on tiles of 64
  // threads (at b = 32 on 64 x 64 tiles a 32-row group lies in one warp:
  // 210.2 -> 194.0 us on an H200; b = 128 190.8 -> 186.8); the SwiGLU form
  // keeps 4 and 128 threads.
  EXPECT_EQ(transposed.transposeRowsPerThread(), 8);
  EXPECT_EQ(transposed.numThreads(), 64);
  EXPECT_EQ(transposed.tileM(), 128);
  // The heuristic's choices are not in the key (they follow from it); a set
  // schedule field is.
  EXPECT_EQ(transposed.key().find('|'), std::string::npos) << transposed.key();
  PerChannelCastConfig b32 = transposed;
  b32.blockM = 32;
  EXPECT_EQ(b32.tileM(), 64);
  EXPECT_EQ(b32.tileK(), 64);
  EXPECT_EQ(b32.numThreads(), 64);
  EXPECT_EQ(b32.transposeRowsPerThread(), 8);
  b32.transposeRows = 16; // the schedule's trows
  EXPECT_EQ(b32.transposeRowsPerThread(), 16);
  EXPECT_NE(b32.key().find("|trows=16"), std::string::npos) << b32.key();
  PerChannelCastConfig swiglu = transposed;
  swiglu.swiglu = true;
  EXPECT_EQ(swiglu.stages(), 2);
  EXPECT_EQ(swiglu.tiles(), 16);
  EXPECT_EQ(swiglu.tileK(), 32);
  EXPECT_TRUE(swiglu.rereadsThreadIndex());
  EXPECT_EQ(swiglu.transposeRowsPerThread(), 4);
  EXPECT_EQ(swiglu.numThreads(), 128);
  PerChannelCastConfig rows = swiglu;
  rows.transposed = false, rows.blockM = 32;
  EXPECT_EQ(rows.stages(), 2);
  EXPECT_EQ(rows.tiles(), 8);
  EXPECT_FALSE(rows.rereadsThreadIndex());
}

TEST(KernelBuilder, MisuseIsAnError) {
  Ctx c;
  {
    KernelBuilder k(c.ctx, "no_grid");
    k.input("x", {Dim::symbol("n"), 64}, DType::F32);
    EXPECT_THROW(k.finish(), std::logic_error);
  }
  // Threads per block: 32 times a power of two, refused where the author chose them.
  for (int64_t threads : {0, 16, 100, 96, 448, 2048})
    EXPECT_THROW(KernelBuilder(c.ctx, "bad_threads", threads), std::invalid_argument) << threads;
  try {
    KernelBuilder k(c.ctx, "fourteen_warps", 448);
    ADD_FAILURE() << "448 threads accepted";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(), "kernel 'fourteen_warps': threads per block must be 32 times a power of two (32, 64, "
                           "128, 256, 512 or 1024), got 448");
  }
  {
    KernelBuilder k(c.ctx, "bad_map");
    Tensor x = k.input("x", {Dim::symbol("n"), 64}, DType::F32);
    try {
      k.grid({1}, [&](const std::vector<Index> &) {
        Tile a = k.load(x, {k.index(0), k.index(0)}, {4, 64});
        Tile b = k.load(x, {k.index(0), k.index(0)}, {2, 64});
        (void)(a + b);
      });
      ADD_FAILURE() << "a map over [4, 64] and [2, 64] accepted";
    } catch (const std::invalid_argument &e) { // names the kernel, the operator and both shapes
      EXPECT_STREQ(e.what(), "kernel 'bad_map': + of tiles of different shapes, [4, 64] and [2, 64] (tiles of one "
                             "rank broadcast where a size is 1; expand() repeats a reduced tile back to its input's "
                             "shape)");
    }
  }
  {
    KernelBuilder k(c.ctx, "bad_body");
    Tensor x = k.input("x", {Dim::symbol("n"), 64}, DType::F32);
    int line = 0;
    try {
      k.grid({1}, [&](const std::vector<Index> &) {
        Tile t = k.load(x, {k.index(0), k.index(0)}, {4, 64});
        line = __LINE__ + 1;
        (void)map({t}, DType::I32, [](const std::vector<Scalar> &v) { return v[0]; });
      });
      ADD_FAILURE() << "an f32 body of an i32 map accepted";
    } catch (const std::invalid_argument &e) { // names the author's line first
      EXPECT_EQ(std::string(e.what()), std::string(__FILE__) + ":" + std::to_string(line) +
                                           ": kernel 'bad_body': the map's body returns f32, the map was declared "
                                           "to return i32");
    }
  }
  {
    // Code-generation settings: allowed values only, and only before grid().
    KernelBuilder k(c.ctx, "settings");
    Tensor x = k.output("x", {Dim::symbol("n"), 64}, DType::F32); // read and written in place
    EXPECT_THROW(k.maxAccessBytes(12), std::invalid_argument);
    EXPECT_THROW(k.transposeRowsPerThread(2), std::invalid_argument);
    try {
      k.transposeRowsPerThread(32);
      ADD_FAILURE() << "32 rows accepted";
    } catch (const std::invalid_argument &e) {
      EXPECT_STREQ(e.what(), "transposeRowsPerThread: 4, 8 or 16 rows, got 32");
    }
    EXPECT_THROW(k.minBlocksPerSm(0), std::invalid_argument);
    EXPECT_THROW(k.minBlocksPerSm(33), std::invalid_argument);
    k.transposeRowsPerThread(8);
    k.minBlocksPerSm(3);
    k.grid({1}, [&](const std::vector<Index> &) {
      k.store(x, {k.index(0), k.index(0)}, k.load(x, {k.index(0), k.index(0)}, {4, 64}));
    });
    EXPECT_THROW(k.transposeRowsPerThread(8), std::logic_error);
    EXPECT_THROW(k.maxAccessBytes(8), std::logic_error);
    EXPECT_THROW(k.vectorElements(16), std::logic_error);
    EXPECT_THROW(k.minBlocksPerSm(2), std::logic_error);
    EXPECT_THROW(k.readOnlyLoads(), std::logic_error);
    EXPECT_THROW(k.warpsAlongRows(), std::logic_error);
    BuiltKernel built = k.finish();
    std::string ir;
    llvm::raw_string_ostream os(ir);
    built.module->print(os);
    EXPECT_NE(ir.find("#tile.schedule<transpose_rows = 8, min_blocks_per_sm = 3>"), std::string::npos) << ir;
  }
  // Read-only loads and warps along rows: schedule fields, so that the kernel's key and the compiler both see them.
  for (auto [set, printed] : std::vector<std::pair<void (KernelBuilder::*)(), std::string>>{
           {&KernelBuilder::readOnlyLoads, "#tile.schedule<readonly_loads = true>"},
           {&KernelBuilder::warpsAlongRows, "#tile.schedule<warps_along_rows = true>"}}) {
    KernelBuilder k(c.ctx, "scheduled");
    Tensor x = k.input("x", {Dim::symbol("n"), 64}, DType::F32);
    Tensor y = k.output("y", {Dim::symbol("n"), 64}, DType::F32);
    (k.*set)();
    k.grid({1}, [&](const std::vector<Index> &) {
      k.store(y, {k.index(0), k.index(0)}, k.load(x, {k.index(0), k.index(0)}, {4, 64}));
    });
    std::string ir;
    llvm::raw_string_ostream os(ir);
    k.finish().module->print(os);
    EXPECT_NE(ir.find(printed), std::string::npos) << ir;
  }
  {
    // A tensor the kernel writes is an output: the compiler may read inputs as read-only, unaliased memory.
    KernelBuilder k(c.ctx, "writes_input");
    Tensor x = k.input("x", {Dim::symbol("n"), 64}, DType::F32);
    Tensor y = k.output("y", {Dim::symbol("n"), 64}, DType::F32);
    int line = 0;
    k.grid({1}, [&](const std::vector<Index> &) {
      Tile t = k.load(x, {k.index(0), k.index(0)}, {4, 64});
      k.store(y, {k.index(0), k.index(0)}, t);
      line = __LINE__ + 1;
      k.store(x, {k.index(0), k.index(0)}, t);
    });
    try {
      k.finish();
      ADD_FAILURE() << "a store into an input accepted";
    } catch (const std::invalid_argument &e) {
      EXPECT_EQ(std::string(e.what()), std::string(__FILE__) + ":" + std::to_string(line) +
                                           ": kernel 'writes_input' writes tensor 'x' (tile.store), which it declares "
                                           "an input: declare it with output() (the compiler reads inputs as "
                                           "read-only memory that no output shares)");
    }
  }
}

// Shifts take an amount of the shifted value's type: an int64 shift used to
// build an i32 amount, which MLIR's verifier rejects (arith.shli needs one type).
TEST(KernelBuilder, ShiftsOfInt64ValuesVerify) {
  Ctx c;
  KernelBuilder k(c.ctx, "shift64");
  Tensor x = k.input("x", {Dim::symbol("n"), 64}, DType::I32);
  Tensor y = k.output("y", {Dim::symbol("n"), 64}, DType::I64);
  k.grid({1}, [&](const std::vector<Index> &) {
    Tile t = k.load(x, {k.index(0), k.index(0)}, {4, 64});
    k.store(y, {k.index(0), k.index(0)},
            map({t}, DType::I64, [](const std::vector<Scalar> &s) { return (s[0].sextToI64() << 40) >> 8; }));
  });
  BuiltKernel built = k.finish();
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*built.module)));
  int shifts = 0;
  built.module->walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == "arith.shli" || op->getName().getStringRef() == "arith.shrui") {
      ++shifts;
      EXPECT_TRUE(op->getOperand(1).getType().isInteger(64));
    }
  });
  EXPECT_EQ(shifts, 2);
}

// shared() / copy() / pipeline(): the loop and its buffers in tile IR, and
// the DSL's own checks (stage count, element types).
TEST(KernelBuilder, PipelineBuildsTilePipeline) {
  Ctx c;
  KernelBuilder k(c.ctx, "staged");
  Tensor x = k.input("x", {Dim::symbol("n"), 64}, DType::BF16);
  Tensor y = k.output("y", {Dim::symbol("n"), 64}, DType::BF16);
  k.grid({ceil_div(Dim::symbol("n"), 32 * 4)}, [&](const std::vector<Index> &b) {
    Shared buf = k.shared({32, 64}, DType::BF16);
    EXPECT_THROW(k.pipeline(k.index(0), k.index(4), 9, [](const Index &) {}), std::invalid_argument);
    Shared wide = k.shared({32, 64}, DType::F32);
    EXPECT_THROW(k.copy(x, {k.index(0), k.index(0)}, wide), std::invalid_argument);
    k.pipeline(k.index(0), k.index(4), 3, [&](const Index &i) {
      Index row = (b[0] * 4 + i) * 32;
      k.copy(x, {row, k.index(0)}, buf);
      k.store(y, {row, k.index(0)}, k.load(buf, {k.index(0), k.index(0)}, {32, 64}));
    });
  });
  BuiltKernel built = k.finish();
  std::string ir;
  llvm::raw_string_ostream os(ir);
  built.module->print(os);
  EXPECT_NE(ir.find("tile.pipeline"), std::string::npos) << ir;
  EXPECT_NE(ir.find("{stages = 3 : i64}"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.copy"), std::string::npos) << ir;
  EXPECT_NE(ir.find("memref<32x64xbf16, #gpu.address_space<workgroup>>"), std::string::npos) << ir;
}

// gridWithTotals: the body's tiles become tile.grid results (block totals),
// added once per block after the grid; mismatches are errors at build time.
TEST(KernelBuilder, GridWithTotalsBuildsBlockTotals) {
  Ctx c;
  KernelBuilder k(c.ctx, "count");
  Tensor x = k.input("x", {Dim::symbol("n"), 128}, DType::I32);
  Tensor counts = k.output("counts", {1, 2}, DType::I64);
  Tensor narrow = k.output("narrow", {1}, DType::I32);
  std::vector<Total> totals =
      k.gridWithTotals(4, {ceil_div(Dim::symbol("n"), 2)}, {DType::I64, DType::I64}, [&](const std::vector<Index> &b) {
        Tile t = k.load(x, {b[0] * 2, k.index(0)}, {2, 128});
        return std::vector<Tile>{t, t};
      });
  ASSERT_EQ(totals.size(), 2u);
  k.atomicAdd(counts, {k.index(0), k.index(1)}, totals[1]);
  EXPECT_THROW(k.atomicAdd(narrow, {k.index(0)}, totals[0]), std::invalid_argument); // i32 tensor, i64 total
  BuiltKernel built = k.finish();
  EXPECT_EQ(built.signature.persistentBlocksPerSm, 4);
  std::string ir;
  llvm::raw_string_ostream os(ir);
  built.module->print(os);
  EXPECT_NE(ir.find("-> (i64, i64)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.atomic_add"), std::string::npos) << ir;

  KernelBuilder bad(c.ctx, "bad");
  Tensor y = bad.input("y", {Dim::symbol("n"), 128}, DType::I32);
  EXPECT_THROW(bad.gridWithTotals(0, {Dim::symbol("n")}, {DType::I64},
                                  [&](const std::vector<Index> &) { return std::vector<Tile>{}; }),
               std::invalid_argument);
  (void)y;
}

} // namespace

// DSL calls name the kernel author's line (SourceLine), the op and the
// shapes; a store that could only cut its tile is refused unless padded on
// purpose (storePadded); numbers go on either side of min and max.
TEST(KernelBuilder, ErrorsNameTheAuthorsLine) {
  Ctx c;
  int line = 0; // set just before each call that must fail
  auto expectError = [&](const std::function<void(KernelBuilder &, Tensor &, Tensor &)> &body,
                         const std::string &what) {
    KernelBuilder k(c.ctx, "lines");
    Tensor x = k.input("x", {Dim::symbol("n"), 64}, DType::F32);
    Tensor y = k.output("y", {Dim::symbol("n"), 32}, DType::F32);
    try {
      k.grid({1}, [&](const std::vector<Index> &) { body(k, x, y); });
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument &e) {
      const std::string msg = e.what(), at = std::string(__FILE__) + ":" + std::to_string(line) + ": ";
      EXPECT_EQ(msg.rfind(at, 0), 0u) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  };
  auto row = [](KernelBuilder &k, Tensor &x) { return k.load(x, {k.index(0), k.index(0)}, {4, 64}); };
  expectError(
      [&](KernelBuilder &k, Tensor &x, Tensor &) {
        Tile a = row(k, x), b = k.load(x, {k.index(0), k.index(0)}, {2, 64});
        line = __LINE__ + 1;
        (void)map({a, b}, DType::F32, [](const std::vector<Scalar> &v) { return v[0] + v[1]; });
      },
      "kernel 'lines': map over tiles of different shapes: input 1 is [2, 64], input 0 is [4, 64] (tiles of "
      "one rank broadcast where a size is 1");
  expectError(
      [&](KernelBuilder &k, Tensor &x, Tensor &y) {
        Tile t = row(k, x);
        line = __LINE__ + 1;
        k.store(y, {k.index(0), k.index(0)}, t);
      },
      "store of a [4, 64] tile into 'y', whose dimension 1 is 32: the tile is wider than the tensor");
  expectError(
      [&](KernelBuilder &k, Tensor &x, Tensor &) {
        Tile t = row(k, x);
        line = __LINE__ + 1;
        (void)reduce_sum(t, 2);
      },
      "reduce of a [4, 64] tile along dimension 2, which it does not have");
  expectError(
      [&](KernelBuilder &k, Tensor &x, Tensor &) {
        Tile t = row(k, x);
        line = __LINE__ + 1;
        (void)expand(t, 3, 2);
      },
      "expand of a [4, 64] tile along dimension 3 by 2");
  // Padded on purpose: only the 32 columns inside y are written; numbers on the left of min and max.
  KernelBuilder k(c.ctx, "padded");
  Tensor x = k.input("x", {Dim::symbol("n"), 64}, DType::F32);
  Tensor y = k.output("y", {Dim::symbol("n"), 32}, DType::F32);
  k.grid({1}, [&](const std::vector<Index> &) {
    line = __LINE__ + 1;
    Tile t = k.load(x, {k.index(0), k.index(0)}, {4, 64});
    k.storePadded(y, {k.index(0), k.index(0)}, min(1.0, max(-1.0, t)));
  });
  BuiltKernel ok = k.finish();
  // The ops carry the author's line as their location (what the compiler's diagnostics print).
  std::string ir;
  llvm::raw_string_ostream os(ir);
  ok.module->print(os, mlir::OpPrintingFlags().enableDebugInfo(true));
  EXPECT_NE(ir.find("dsl_test.cpp\":" + std::to_string(line) + ":0"), std::string::npos) << ir;
}
