// The kernel-author API of include/tk/dsl.hpp: compile and run through the
// public names only, the registry's refusals, and toolMain's commands.
#include "tk/dsl.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

tk::BuiltKernel buildTwice(mlir::MLIRContext &ctx) {
  tk::KernelBuilder k(ctx, "author_twice", 64);
  tk::Dim n = k.dynamic("n");
  tk::Tensor x = k.input("x", {n, 64}, tk::DType::F32);
  tk::Tensor y = k.output("y", {n, 64}, tk::DType::F32);
  k.grid({n}, [&](const std::vector<tk::Index> &b) {
    k.store(y, {b[0], k.index(0)}, k.load(x, {b[0], k.index(0)}, {1, 64}) * 2.0);
  });
  return k.finish();
}

tk::BuiltKernel buildWrong(mlir::MLIRContext &ctx) {
  tk::KernelBuilder k(ctx, "author_wrong", 64);
  tk::Tensor x = k.input("x", {8, 64}, tk::DType::F32);
  k.grid({1}, [&](const std::vector<tk::Index> &) {
    (void)(k.load(x, {k.index(0), k.index(0)}, {4, 64}) + k.load(x, {k.index(0), k.index(0)}, {2, 64}));
  });
  return k.finish();
}

tk_tensor hostF32(float *data, int64_t rows) {
  tk_tensor t{};
  t.data = data;
  t.dtype = TK_F32;
  t.ndim = 2;
  t.shape[0] = rows, t.shape[1] = 64;
  t.strides[0] = 64, t.strides[1] = 1;
  t.device = TK_DEVICE_CPU;
  return t;
}

TEST(AuthorApi, CompileAndRunThroughThePublicHeader) {
  std::string ptx;
  ASSERT_EQ(tk::compile(tk::factoryOf(buildTwice), "sm_90a", ptx), TK_SUCCESS) << tk_last_error();
  EXPECT_NE(ptx.find(".entry author_twice"), std::string::npos);

  std::vector<float> x(3 * 64), y(x.size(), 0.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = (float)i - 17.5f;
  tk_tensor tx = hostF32(x.data(), 3), ty = hostF32(y.data(), 3);
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  ASSERT_EQ(tk::run(ctx, tk::factoryOf(buildTwice), {&tx, &ty}), TK_SUCCESS) << tk_last_error();
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(y[i], 2.0f * x[i]) << i;
  tk_context_destroy(ctx);
}

TEST(AuthorApi, ErrorsComeBackAsStatusesWithMessages) {
  std::string ptx = "unchanged";
  EXPECT_EQ(tk::compile(tk::factoryOf(buildTwice), "sm_75", ptx), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tk_last_error(), "tk::compile: unknown target 'sm_75' (sm_80, sm_90a, sm_100a)");
  EXPECT_EQ(tk::compile(tk::factoryOf(buildWrong), "sm_80", ptx), TK_ERROR_COMPILE);
  EXPECT_NE(std::string(tk_last_error()).find("+ of tiles of different shapes, [4, 64] and [2, 64]"), std::string::npos)
      << tk_last_error();
  EXPECT_EQ(ptx, "unchanged");
  EXPECT_EQ(tk::compile(tk::KernelFactory(), "sm_80", ptx), TK_ERROR_INVALID_ARGUMENT);
  float x[64] = {}, y[64] = {};
  tk_tensor tx = hostF32(x, 1), ty = hostF32(y, 1);
  EXPECT_EQ(tk::run(nullptr, tk::factoryOf(buildTwice), {&tx, &ty}), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tk_last_error(), "tk::run: ctx is null");
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  EXPECT_EQ(tk::run(ctx, tk::factoryOf(buildTwice), {&tx}), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tk_last_error(), "author_twice takes 2 tensors, got 1");
  // Empty tensors may have any strides (NumPy's (0, 64) arrays have (0, 0)): nothing to run.
  tk_tensor ex = hostF32(x, 0), ey = hostF32(y, 0);
  ex.strides[0] = ex.strides[1] = ey.strides[0] = ey.strides[1] = 0;
  EXPECT_EQ(tk::run(ctx, tk::factoryOf(buildTwice), {&ex, &ey}), TK_SUCCESS) << tk_last_error();
  tk_context_destroy(ctx);
}

TEST(AuthorApi, TheRegistryRefusesWhatToolingCouldNotName) {
  auto reg = [](std::string name, std::vector<std::string> variants) {
    tk::UserKernel k{std::move(name), {}, "", {}};
    for (auto &v : variants)
      k.variants.push_back({v, tk::factoryOf(buildTwice)});
    return tk::registerKernel(std::move(k));
  };
  EXPECT_EQ(reg("", {"a"}), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(reg("has space", {"a"}), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(reg("../up", {"a"}), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(reg("novariants", {}), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tk_last_error(), "tk::registerKernel: kernel 'novariants' has no variants");
  EXPECT_EQ(reg("twovariants", {"v", "v"}), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tk_last_error(), "tk::registerKernel: kernel 'twovariants' has two variants named 'v'");
  EXPECT_EQ(reg("registry_first", {"registry_first.v"}), TK_SUCCESS);
  EXPECT_EQ(reg("registry_first", {"other"}), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tk_last_error(), "tk::registerKernel: a kernel named 'registry_first' is registered already");
  EXPECT_EQ(reg("registry_second", {"registry_first.v"}), TK_ERROR_INVALID_ARGUMENT);
  tk::UserKernel noBuild{"nobuild", {{"nobuild.v", tk::KernelFactory()}}, "", {}};
  EXPECT_EQ(tk::registerKernel(noBuild), TK_ERROR_INVALID_ARGUMENT);
  int found = 0;
  for (const tk::UserKernel &k : tk::registeredKernels())
    found += k.name == "registry_first";
  EXPECT_EQ(found, 1);
}

int tool(std::vector<std::string> args) {
  std::vector<char *> argv;
  static std::string prog = "author_tool";
  argv.push_back(prog.data());
  for (auto &a : args)
    argv.push_back(a.data());
  return tk::toolMain((int)argv.size(), argv.data());
}

TEST(AuthorApi, ToolMainCompilesAndRunsRegisteredKernels) {
  tk::UserKernel k{"tool_twice", {{"tool_twice.n64", tk::factoryOf(buildTwice)}}, "doubles rows", {}};
  bool checked = false;
  k.check = [&](tk_context ctx) {
    checked = ctx != nullptr;
    return std::string();
  };
  ASSERT_EQ(tk::registerKernel(k), TK_SUCCESS) << tk_last_error();
  tk::UserKernel failing{"tool_failing", {{"tool_failing.v", tk::factoryOf(buildTwice)}}, "", {}};
  failing.check = [](tk_context) { return std::string("wrong on purpose"); };
  ASSERT_EQ(tk::registerKernel(failing), TK_SUCCESS);

  char tmpl[] = "/tmp/tk_author_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  EXPECT_EQ(tool({"compile", "tool_twice", "--target", "sm_80", "--target", "sm_100a", "-o", dir}), 0);
  for (const char *t : {"sm_80", "sm_100a"}) {
    std::ifstream in(dir + "/tool_twice.n64." + t + ".ptx");
    std::stringstream ptx;
    ptx << in.rdbuf();
    EXPECT_NE(ptx.str().find(".entry author_twice"), std::string::npos) << t;
    std::remove((dir + "/tool_twice.n64." + t + ".ptx").c_str());
  }
  std::ifstream none(dir + "/tool_twice.n64.sm_90a.ptx");
  EXPECT_FALSE(none.good()) << "only the targets asked for";

  EXPECT_EQ(tool({"run", "tool_twice"}), 0);
  EXPECT_TRUE(checked);
  checked = false;
  EXPECT_EQ(tool({"run", "tool_twice.n64"}), 0) << "a variant's name runs its kernel's check";
  EXPECT_TRUE(checked);
  EXPECT_EQ(tool({"compile", "tool_twice", "--target", "sm_90a", "-o", dir + "/nested/deeper"}), 0) << "mkdir -p";
  std::remove((dir + "/nested/deeper/tool_twice.n64.sm_90a.ptx").c_str());
  rmdir((dir + "/nested/deeper").c_str());
  rmdir((dir + "/nested").c_str());
  EXPECT_EQ(tool({"run", "tool_failing"}), 1);
  EXPECT_EQ(tool({"list"}), 0);
  EXPECT_EQ(tool({"compile", "nosuch", "-o", "/tmp"}), 2);
  EXPECT_EQ(tool({"compile", "tool_twice"}), 2) << "-o is required";
  EXPECT_EQ(tool({"compile", "tool_twice", "--target", "sm_75", "-o", "/tmp"}), 2);
  EXPECT_EQ(tool({"frobnicate"}), 2);
  EXPECT_EQ(tool({}), 2);
  rmdir(dir.c_str());
}

} // namespace
