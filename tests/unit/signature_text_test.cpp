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
  // Text the DSL never writes, which the launcher would divide by or index with.
  for (const char *edit : {"grid 1 (cdiv $rows 0)", "grid 1 (fdiv 5 -1)", "grid 1 99999999999999999",
                           "grid 1 (mul 281474976710656 281474976710656)"}) {
    std::string t = text;
    const size_t at = t.find("grid"), end = t.find('\n', at);
    t.replace(at, end - at, edit);
    EXPECT_FALSE(dsl::readSignature(t, back, error)) << edit;
  }
  for (auto [from, to] : {std::pair<std::string, std::string>{"multiple rows 4", "multiple rows 0"},
                          {"x 0 16 0", "x 0 0 0"},
                          {"x 0 16 0", "x 0 12 0"},
                          {"x 0 16 0", "x 42 16 0"},
                          {"threads 128", "threads 0"},
                          {"eps 2", "eps 77"}}) {
    std::string t = text;
    ASSERT_NE(t.find(from), std::string::npos) << from << " in\n" << text;
    t.replace(t.find(from), from.size(), to);
    EXPECT_FALSE(dsl::readSignature(t, back, error)) << to;
  }
  s.tensors[0].name = "has space";
  EXPECT_FALSE(dsl::writeSignature(s));
}

} // namespace

namespace {

// Damaged text never crashes the reader: every prefix and 20000 random
// byte edits of a real signature either are refused or read as a signature
// that writes back and reads again (what the index may meet on disk).
TEST(SignatureText, DamagedEntriesNeverCrashTheReader) {
  dsl::KernelSignature s;
  s.name = "fuzzed";
  s.grid = {ceil_div(dsl::Dim::symbol("rows"), dsl::Dim(4)), dsl::Dim(7)};
  s.tensors = {{"x", dsl::DType::F32, {dsl::Dim::symbol("rows"), 64}, {dsl::kDynamicStride, 1}, 16, false},
               {"y", dsl::DType::I8, {ceil_div(dsl::Dim::symbol("rows"), dsl::Dim(2)), 3}, {3, 1}, 4, true}};
  s.scalars = {{"n", dsl::DType::I32}};
  s.symbolMultiples = {{"rows", 2}};
  const std::string text = *dsl::writeSignature(s);
  auto survives = [](const std::string &t) {
    dsl::KernelSignature out;
    std::string error;
    if (!dsl::readSignature(t, out, error))
      return !error.empty();
    std::optional<std::string> again = dsl::writeSignature(out);
    dsl::KernelSignature twice;
    return !again || dsl::readSignature(*again, twice, error);
  };
  for (size_t n = 0; n <= text.size(); ++n)
    ASSERT_TRUE(survives(text.substr(0, n))) << n;
  uint64_t state = 7;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull, state >> 33; };
  const std::string alphabet = "()$ -?0123456789\nabcdefghijklmnopqrstuvwxyz\x7f\xff";
  for (int i = 0; i < 20000; ++i) {
    std::string t = text;
    for (int edits = 1 + next() % 4; edits > 0; --edits) {
      const size_t at = next() % t.size();
      switch (next() % 3) {
      case 0:
        t[at] = alphabet[next() % alphabet.size()];
        break;
      case 1:
        t.erase(at, 1 + next() % 3);
        break;
      default:
        t.insert(at, 1, alphabet[next() % alphabet.size()]);
        break;
      }
      if (t.empty())
        t = "x";
    }
    ASSERT_TRUE(survives(t)) << i << ": " << t;
  }
}

} // namespace
