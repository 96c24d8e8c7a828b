// kernels/common/arguments.h: an entry point's tensor contract, checked with
// messages that name the argument, the size and where its value came from.
#include "kernels/common/arguments.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using tk::kernels::Arguments;
using tk::kernels::Layout;

tk_tensor host(tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  alignas(16) static char data[64];
  tk_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.ndim = (int32_t)shape.size();
  t.device = TK_DEVICE_CPU;
  int64_t stride = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    t.shape[i] = shape[i];
    t.strides[i] = strides.empty() ? stride : strides[i];
    stride *= shape[i];
  }
  return t;
}

std::string error(const Arguments &a) { return a.ok() ? "" : a.status().message(); }

TEST(Arguments, SymbolsBindOnceAndLaterTensorsMustAgree) {
  tk_tensor x = host(TK_BF16, {4, 8}), sf = host(TK_F32, {4, 2}), bad = host(TK_F32, {5, 2});
  Arguments a("tk_op");
  EXPECT_TRUE(a.tensor("x", &x, {"M", "K"}, {TK_BF16, TK_F32}));
  a.define("Kb", a["K"] / 4, "K / g");
  EXPECT_TRUE(a.tensor("sf", &sf, {"M", "Kb"}, {TK_F32}));
  EXPECT_TRUE(a.ok());
  EXPECT_EQ(a["M"], 4);
  EXPECT_EQ(a["Kb"], 2);
  EXPECT_FALSE(a.tensor("sf2", &bad, {"M", "Kb"}, {TK_F32}));
  EXPECT_EQ(error(a), "tk_op: sf2 has shape (5, 2); the contract is (M, Kb) with M = 4 (x dimension 0)");
  // The first failure stays.
  EXPECT_FALSE(a.tensor("x", nullptr, {"M"}, {}));
  EXPECT_EQ(error(a), "tk_op: sf2 has shape (5, 2); the contract is (M, Kb) with M = 4 (x dimension 0)");
}

TEST(Arguments, DerivedSizesNameTheirMeaning) {
  tk_tensor x = host(TK_BF16, {4, 8}), sf = host(TK_F32, {4, 3});
  Arguments a("tk_op");
  a.tensor("x", &x, {"M", "K"}, {});
  a.define("Kb", 2, "ceil(K / g)");
  a.tensor("sf", &sf, {"M", "Kb"}, {});
  EXPECT_EQ(error(a), "tk_op: sf has shape (4, 3); the contract is (M, Kb) with Kb = 2 (ceil(K / g))");
}

TEST(Arguments, FixedSizesDtypesRanksAndNulls) {
  tk_tensor x = host(TK_I32, {4, 3});
  {
    Arguments a("tk_op");
    a.tensor("x", &x, {"M", 2}, {TK_I32});
    EXPECT_EQ(error(a), "tk_op: x has shape (4, 3); its dimension 1 must be 2 (the contract is (M, 2))");
  }
  {
    Arguments a("tk_op");
    a.tensor("x", &x, {"M", "K"}, {TK_F32, TK_BF16});
    EXPECT_EQ(error(a), "tk_op: x must be f32 or bf16, got i32");
  }
  {
    Arguments a("tk_op");
    a.tensor("x", &x, {"M"}, {});
    EXPECT_EQ(error(a), "tk_op: x must have 1 dimensions, got 2");
  }
  {
    Arguments a("tk_op");
    EXPECT_FALSE(a.tensor("w", nullptr, {"M"}, {}, Layout::Strided, /*optional=*/true));
    EXPECT_TRUE(a.ok());
    EXPECT_FALSE(a.bound("M")); // an absent optional tensor binds nothing
    a.tensor("x", nullptr, {"M"}, {});
    EXPECT_EQ(error(a), "tk_op: x is null");
  }
  {
    // A symbol used twice in one tensor must agree with itself.
    tk_tensor square = host(TK_F32, {3, 4});
    Arguments a("tk_op");
    a.tensor("m", &square, {"N", "N"}, {});
    EXPECT_EQ(error(a), "tk_op: m has shape (3, 4); the contract is (N, N) with N = 3 (m)");
  }
}

TEST(Arguments, Layouts) {
  tk_tensor rows = host(TK_F32, {4, 8}, {16, 1}), cols = host(TK_F32, {4, 8}, {1, 4});
  Arguments a("tk_op");
  EXPECT_TRUE(a.tensor("a", &rows, {"M", "K"}, {}, Layout::UnitInnerStride));
  EXPECT_FALSE(a.tensor("b", &rows, {"M", "K"}, {}, Layout::Contiguous));
  EXPECT_EQ(error(a), "tk_op: b must be contiguous (row-major) (4, 8)");
  Arguments c("tk_op");
  c.tensor("c", &cols, {"M", "K"}, {}, Layout::UnitInnerStride);
  EXPECT_EQ(error(c), "tk_op: c needs a unit innermost stride, got 4");
}

} // namespace
