// A kernel's launch contract as text (SignatureText.h), what the disk index
// keeps so a new process launches without building the kernel: every
// shipped kernel's signature reads back as written, evaluates alike, and
// damaged text is refused.
#include "kernels/registry.h"
#include "tk/compiler/Registration.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/dsl/SignatureText.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

namespace {

using namespace tk;

TEST(SignatureText, EveryShippedKernelsSignatureReadsBackAsWritten) {
  mlir::DialectRegistry registry;
  compiler::registerDialects(registry);
  const compiler::Target target = *compiler::findTarget("sm_90a");
  int kernels = 0;
  for (const auto &k : kernels::shippedKernels())
    for (const auto &variant : k.variants) {
      mlir::MLIRContext ctx(registry);
      ctx.loadAllAvailableDialects();
      const dsl::KernelSignature sig = variant.build.build(ctx, target).signature;
      std::optional<std::string> text = dsl::writeSignature(sig);
      ASSERT_TRUE(text) << variant.name;
      dsl::KernelSignature back;
      std::string error;
      ASSERT_TRUE(dsl::readSignature(*text, back, error)) << variant.name << ": " << error << "\n" << *text;
      EXPECT_EQ(dsl::writeSignature(back), text) << variant.name;
      // The same sizes for the same launch.
      std::map<std::string, int64_t> symbols;
      for (const auto &t : sig.tensors)
        for (const auto &d : t.shape)
          if (d.kind() == dsl::Dim::Kind::Symbol)
            symbols[d.symbolName()] = 4096;
      ASSERT_EQ(back.grid.size(), sig.grid.size());
      for (size_t i = 0; i < sig.grid.size(); ++i) {
        try {
          EXPECT_EQ(back.grid[i].evaluate(symbols), sig.grid[i].evaluate(symbols)) << variant.name;
        } catch (const std::out_of_range &) { // a size no tensor binds
        }
      }
      ++kernels;
    }
  EXPECT_GT(kernels, 80);
}

TEST(SignatureText, DamagedTextIsRefused) {
  dsl::KernelSignature s;
  s.name = "k";
  s.grid = {ceil_div(dsl::Dim::symbol("rows"), dsl::Dim(4)) * 2 + 1}; // (ADL: the friend ceil_div of Dims)
  dsl::TensorParam t{"x", dsl::DType::BF16, {dsl::Dim::symbol("rows"), 7168}, {dsl::kDynamicStride, 1}, 16, false};
  s.tensors = {t};
  s.scalars = {{"eps", dsl::DType::F32}};
  s.symbolMultiples = {{"rows", 4}};
  const std::string text = *dsl::writeSignature(s);
  EXPECT_NE(text.find("grid 1 (add (mul (cdiv $rows 4) 2) 1)"), std::string::npos) << text;
  dsl::KernelSignature back;
  std::string error;
  ASSERT_TRUE(dsl::readSignature(text, back, error)) << error;
  EXPECT_EQ(back.grid[0].evaluate({{"rows", 10}}), 7);
  EXPECT_EQ(back.tensors[0].strides[0], dsl::kDynamicStride);
  EXPECT_EQ(back.symbolMultiples.at("rows"), 4);
  EXPECT_EQ(back.scalars[0].name, "eps");
  EXPECT_FALSE(dsl::readSignature(text.substr(0, text.size() - 5), back, error)); // no end line
  EXPECT_EQ(error.find("signature line"), 0u) << error;
  std::string bad = text;
  bad.replace(bad.find("cdiv"), 4, "cmod");
  EXPECT_FALSE(dsl::readSignature(bad, back, error));
  EXPECT_FALSE(dsl::readSignature("tk-signature 2\nend\n", back, error));
  s.tensors[0].name = "has space";
  EXPECT_FALSE(dsl::writeSignature(s));
}

} // namespace
