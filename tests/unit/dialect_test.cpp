// Building, printing and verifying tile IR programmatically.
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

struct Ctx {
  MLIRContext ctx;
  Ctx() {
    DialectRegistry registry;
    tk::compiler::registerDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
};

TEST(TileDialect, FragmentTypeRoundTrips) {
  Ctx c;
  auto layout = tk::tile::BlockedLayoutAttr::get(&c.ctx, {1, 8}, {1, 32}, {2, 2});
  auto type = tk::tile::FragmentType::get(&c.ctx, {4, 1024}, Float32Type::get(&c.ctx), layout);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  EXPECT_EQ(text, "!tile.frag<4x1024xf32, #tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [2, 2]>>");
  EXPECT_EQ(parseType(text, &c.ctx), type);
  EXPECT_EQ(type.getNumElements(), 4096);
}

TEST(TileDialect, VerifierNamesTheProblem) {
  Ctx c;
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&c.ctx, [&](Diagnostic &d) {
    diagnostics += d.str();
    return success();
  });
  const char *ir = R"(
    tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.grid (%i) in (%c1) {
        %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<4x64xf32>
        %r = tile.reduce sum %t {dim = 1 : i64, group = 64 : i64} : !tile.frag<4x64xf32> -> !tile.frag<4x2xf32>
      }
      tile.return
    })";
  auto module = parseSourceString<ModuleOp>(ir, &c.ctx);
  EXPECT_FALSE(module);
  EXPECT_NE(diagnostics.find("expected extent 1 along dimension 1, got 2"), std::string::npos) << diagnostics;
}

TEST(TileDialect, ParsesAValidKernel) {
  Ctx c;
  const char *ir = R"(
    tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 64 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.grid (%i) in (%c1) {
        %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<2x64xf32>
        %r = tile.reduce sum %t {dim = 1 : i64, group = 32 : i64} : !tile.frag<2x64xf32> -> !tile.frag<2x2xf32>
      }
      tile.return
    })";
  auto module = parseSourceString<ModuleOp>(ir, &c.ctx);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<tk::tile::KernelOp>().begin();
  EXPECT_EQ(kernel.getThreads(), 64u);
  EXPECT_EQ(kernel.getNumWarps(), 2);
  ASSERT_TRUE(kernel.getGrid());
  EXPECT_EQ(kernel.getGrid().getSizes().size(), 1u);
}

} // namespace
