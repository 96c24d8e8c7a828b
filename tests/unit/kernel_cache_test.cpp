// Content-addressed kernels: an edited kernel always runs as edited, in the
// same process and in the next one; disk entries are verified on read.
#include "kernels/quant/per_token_cast.h"
#include "tests/kernels/affine_kernel.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/dsl/SignatureText.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/KernelIndex.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tk;

namespace {

/// out = x * factor over a (rows, 64) f32 tensor: one program whose source
/// says `factor`, as an author would edit it. (Factors other than 2, which
/// LLVM turns into an addition, so that the PTX shows the constant.)
struct ScaleConfig {
  double factor = 3.0;
  std::string tag;                                                 ///< part of the key (the factor is not)
  std::string key() const { return "rows=dynamic,cols=64" + tag; } // the same key whatever the factor
};

dsl::BuiltKernel buildScale(mlir::MLIRContext &ctx, const ScaleConfig &c) {
  return test::buildAffineKernel(ctx, c.factor, 0);
}

/// The same kernel, another DSL program (a second build function), as a
/// kernel author who copied a kernel and changed it under the same name
/// and config would have.
dsl::BuiltKernel buildScaleCopy(mlir::MLIRContext &ctx, const ScaleConfig &c) {
  ScaleConfig edited = c;
  edited.factor = 5.0;
  return buildScale(ctx, edited);
}

tk_tensor hostTensor(float *data, int64_t rows) {
  tk_tensor t{};
  t.data = data, t.dtype = TK_F32, t.ndim = 2, t.device = TK_DEVICE_CPU;
  t.shape[0] = rows, t.shape[1] = 64, t.strides[0] = 64, t.strides[1] = 1;
  return t;
}

/// Runs `factory` on the CPU path of `ctx` and returns out[0] for x = 1.
float runOnce(tk_context ctx, const runtime::KernelFactory &factory) {
  std::vector<float> x(4 * 64, 1.0f), out(4 * 64, 0.0f);
  tk_tensor tx = hostTensor(x.data(), 4), tout = hostTensor(out.data(), 4);
  runtime::Status s = ctx->run(factory, {&tx, &tout}, nullptr);
  EXPECT_TRUE(s.isOk()) << s.message();
  return out[0];
}

struct TempDir {
  std::string path;
  TempDir() {
    char dir[] = "/tmp/tk-cache-test-XXXXXX";
    path = mkdtemp(dir);
  }
  ~TempDir() { std::system(("rm -rf " + path).c_str()); }
};

const compiler::Target &sm90() {
  static const compiler::Target t = *compiler::findTarget("sm_90a");
  return t;
}

// Two programs under one kernel name and config key: each runs as written.
// (A cache keyed by the name and config string served the first kernel's
// x3 results for the second's x5.)
TEST(KernelCache, AnEditedKernelRunsAsEditedInTheSameProcess) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  EXPECT_EQ(runOnce(ctx, runtime::factoryOf(buildScale, ScaleConfig{})), 3.0f);
  EXPECT_EQ(runOnce(ctx, runtime::factoryOf(buildScaleCopy, ScaleConfig{})), 5.0f);
  EXPECT_EQ(runOnce(ctx, runtime::factoryOf(buildScale, ScaleConfig{})), 3.0f);
  // Anonymous factories (no program identity) are found by their content.
  EXPECT_EQ(runOnce(ctx, [](mlir::MLIRContext &c) { return buildScale(c, ScaleConfig{7.0}); }), 7.0f);
  EXPECT_EQ(runOnce(ctx, [](mlir::MLIRContext &c) { return buildScale(c, ScaleConfig{9.0}); }), 9.0f);
  EXPECT_EQ(ctx->cpuCache.size(), 4u);
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);

  // The GPU path: two kernels, two content keys, the PTX of each factor.
  runtime::JitCache cache;
  std::shared_ptr<runtime::CompiledKernel> two, three;
  ASSERT_TRUE(cache.get(runtime::factoryOf(buildScale, ScaleConfig{}), sm90(), nullptr, two).isOk());
  ASSERT_TRUE(cache.get(runtime::factoryOf(buildScaleCopy, ScaleConfig{}), sm90(), nullptr, three).isOk());
  EXPECT_NE(two->contentKey, three->contentKey);
  EXPECT_NE(two->ptx.find("0f40400000"), std::string::npos);   // 3.0
  EXPECT_NE(three->ptx.find("0f40A00000"), std::string::npos); // 5.0
}

// A cache reads the compile options (TK_MIN_BLOCKS_PER_SM, TK_ABLATE, ...)
// once, when its context is made: a variable changed later does not change
// the kernels that context compiles, nor costs a getenv per launch.
TEST(KernelCache, CompileOptionsAreReadOncePerCache) {
  unsetenv("TK_MIN_BLOCKS_PER_SM");
  runtime::JitCache before;
  setenv("TK_MIN_BLOCKS_PER_SM", "4", 1);
  runtime::JitCache after;
  unsetenv("TK_MIN_BLOCKS_PER_SM");
  EXPECT_EQ(before.options().minBlocksPerSm, 0);
  EXPECT_EQ(after.options().minBlocksPerSm, 4);
  std::shared_ptr<runtime::CompiledKernel> plain, bounded;
  ASSERT_TRUE(before.get(runtime::factoryOf(buildScale, ScaleConfig{}), sm90(), nullptr, plain).isOk());
  ASSERT_TRUE(after.get(runtime::factoryOf(buildScale, ScaleConfig{}), sm90(), nullptr, bounded).isOk());
  EXPECT_EQ(plain->ptx.find(".minnctapersm"), std::string::npos);
  EXPECT_NE(bounded->ptx.find(".minnctapersm 4"), std::string::npos);
  EXPECT_NE(plain->contentKey, bounded->contentKey);
}

// Across processes the disk cache is keyed by content: a process whose
// kernel source says x5 never loads the PTX a process with x3 left behind,
// with the same program, name and config key; a third process with x3 does.
// (A real edit rebuilds the binary, whose new build id misses the disk
// index; this one edits within one binary, behind a config key that hides
// the factor, so it leaves the index out and tests the content key alone.)
TEST(KernelCache, AnEditedKernelRunsAsEditedInTheNextProcess) {
  TempDir dir;
  setenv("TK_CACHE_DIR", dir.path.c_str(), 1);
  auto compileIn = [&](double factor, std::shared_ptr<runtime::CompiledKernel> &out, size_t &diskHits) {
    runtime::JitCache cache(/*useIndex=*/false); // what a new process starts with
    runtime::KernelFactory f = runtime::factoryOf(buildScale, ScaleConfig{factor});
    EXPECT_TRUE(cache.get(f, sm90(), nullptr, out).isOk());
    diskHits = cache.diskHits();
  };
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) { // the earlier process: source says x3
    std::shared_ptr<runtime::CompiledKernel> k;
    size_t hits = 0;
    compileIn(3.0, k, hits);
    _exit(k && !k->fromDisk && k->ptx.find("0f40400000") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::shared_ptr<runtime::CompiledKernel> edited, again;
  size_t editedHits = 0, againHits = 0;
  compileIn(5.0, edited, editedHits); // the edited source: x5
  EXPECT_EQ(editedHits, 0u);
  EXPECT_FALSE(edited->fromDisk);
  EXPECT_NE(edited->ptx.find("0f40A00000"), std::string::npos);
  EXPECT_EQ(edited->ptx.find("0f40400000"), std::string::npos);
  compileIn(3.0, again, againHits); // the source as it was: from disk
  EXPECT_EQ(againHits, 1u);
  EXPECT_TRUE(again->fromDisk);
  EXPECT_NE(again->ptx.find("0f40400000"), std::string::npos);
  unsetenv("TK_CACHE_DIR");
}

/// The bytes of a file.
std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string &path, const std::string &bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// A damaged, foreign or non-file entry is a miss: the kernel is compiled
// again and the entry replaced by an intact one.
TEST(KernelCache, DiskEntriesAreVerifiedOnRead) {
  TempDir dir;
  runtime::DiskCache disk = runtime::DiskCache::at(dir.path);
  ASSERT_TRUE(disk.enabled());
  const std::string key(64, 'a'), other(64, 'b'), ptx = "// some PTX\n.version 8.0\n";
  disk.write(key, ptx);
  ASSERT_EQ(disk.read(key), ptx);
  const std::string path = disk.pathFor(key), intact = slurp(path);

  spit(path, intact.substr(0, intact.size() - 3)); // truncated after an intact header
  EXPECT_FALSE(disk.read(key));
  std::string garbled = intact;
  garbled.back() ^= 1; // same length, one bit off
  spit(path, garbled);
  EXPECT_FALSE(disk.read(key));
  spit(path, intact);
  EXPECT_FALSE(disk.read(other)); // another key's entry at this path (a foreign file)
  spit(path, "// tk cache key: an older format\n" + ptx);
  EXPECT_FALSE(disk.read(key));

  // A FIFO in the entry's place: a miss at once (not a read that waits for
  // a writer forever), and the next write replaces it.
  std::remove(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_FALSE(disk.read(key));
  disk.write(key, ptx);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(disk.read(key), ptx);

  // Through the JIT cache: a damaged entry is compiled again and repaired.
  setenv("TK_CACHE_DIR", dir.path.c_str(), 1);
  std::shared_ptr<runtime::CompiledKernel> first, second, third;
  runtime::KernelFactory f = runtime::factoryOf(buildScale, ScaleConfig{});
  {
    runtime::JitCache a;
    ASSERT_TRUE(a.get(f, sm90(), nullptr, first).isOk());
  }
  const std::string entry = runtime::DiskCache::at(dir.path).pathFor(first->contentKey);
  std::string bytes = slurp(entry);
  spit(entry, bytes.substr(0, bytes.size() / 2));
  {
    runtime::JitCache b;
    ASSERT_TRUE(b.get(f, sm90(), nullptr, second).isOk());
    EXPECT_FALSE(second->fromDisk);
    EXPECT_EQ(second->ptx, first->ptx);
  }
  EXPECT_EQ(slurp(entry), bytes); // replaced by an intact entry
  {
    runtime::JitCache c;
    ASSERT_TRUE(c.get(f, sm90(), nullptr, third).isOk());
    EXPECT_TRUE(third->fromDisk);
  }
  unsetenv("TK_CACHE_DIR");
}

/// A program that counts its runs (the index must spare a warm process them).
int scaleBuilds = 0;
dsl::BuiltKernel buildCountedScale(mlir::MLIRContext &ctx, const ScaleConfig &c) {
  ++scaleBuilds;
  return buildScale(ctx, c);
}

// A new process finds a kernel through the disk index without running its
// DSL program: the same content key, signature and PTX as the process that
// compiled it; another config misses; a damaged entry is a miss that is
// rebuilt and rewritten.
TEST(KernelCache, TheIndexSparesAWarmProcessTheProgram) {
  TempDir dir;
  setenv("TK_CACHE_DIR", dir.path.c_str(), 1);
  const runtime::KernelFactory f = runtime::factoryOf(buildCountedScale, ScaleConfig{});
  ASSERT_NE(runtime::indexKey(f, sm90(), ""), "") << "the test binary has a GNU build id";
  std::shared_ptr<runtime::CompiledKernel> first;
  {
    runtime::JitCache cache;
    ASSERT_TRUE(cache.get(f, sm90(), nullptr, first).isOk());
    EXPECT_FALSE(first->fromIndex);
  }
  auto inChild = [&](const std::function<bool()> &check) {
    pid_t child = fork();
    if (child == 0)
      _exit(check() ? 0 : 1);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  };
  EXPECT_TRUE(inChild([&] { // a new process: no program run
    const int before = scaleBuilds;
    runtime::JitCache cache;
    std::shared_ptr<runtime::CompiledKernel> k;
    return cache.get(f, sm90(), nullptr, k).isOk() && k->fromIndex && scaleBuilds == before &&
           k->contentKey == first->contentKey && k->ptx == first->ptx && k->signature.name == "affine" &&
           dsl::writeSignature(k->signature) == dsl::writeSignature(first->signature);
  }));
  EXPECT_TRUE(inChild([&] { // another config: the program runs
    const int before = scaleBuilds;
    runtime::JitCache cache;
    std::shared_ptr<runtime::CompiledKernel> k;
    return cache.get(runtime::factoryOf(buildCountedScale, ScaleConfig{7.0, "other"}), sm90(), nullptr, k).isOk() &&
           !k->fromIndex && scaleBuilds == before + 1;
  }));
  const std::string entry =
      runtime::DiskCache::at(dir.path).pathFor(runtime::indexKey(f, sm90(), ""), runtime::DiskCache::Kind::Index);
  const std::string intact = slurp(entry);
  spit(entry, intact.substr(0, intact.size() - 4));
  EXPECT_TRUE(inChild([&] { // damaged: a miss, built again
    const int before = scaleBuilds;
    runtime::JitCache cache;
    std::shared_ptr<runtime::CompiledKernel> k;
    return cache.get(f, sm90(), nullptr, k).isOk() && !k->fromIndex && scaleBuilds == before + 1;
  }));
  EXPECT_EQ(slurp(entry), intact) << "rewritten whole";
  unsetenv("TK_CACHE_DIR");
}

// Cubins (binary, NULs included) are entries of their own kind beside the
// PTX: keyed by the content key and the architecture (`tk bundle`'s ptxas
// cubins), verified the same way, and never mistaken for the PTX entry of the
// same key or another architecture's cubin.
TEST(KernelCache, CubinEntriesAreKeyedByArchitectureAndVerified) {
  TempDir dir;
  runtime::DiskCache disk = runtime::DiskCache::at(dir.path);
  const std::string content(64, 'c'), ptx = "// PTX\n";
  const std::string key = runtime::aotCubinKey(content, 9, 0), otherKey = runtime::aotCubinKey(content, 8, 0);
  EXPECT_EQ(key, content + ".sm90.aot");
  std::string cubin("\x7f"
                    "ELF\0\0\x01\x02binary\0body",
                    18);
  disk.write(content, ptx);
  disk.write(key, cubin, runtime::DiskCache::Kind::Cubin);
  EXPECT_EQ(disk.pathFor(key, runtime::DiskCache::Kind::Cubin),
            dir.path + "/" + content.substr(0, 40) + ".sm90.aot.cubin");
  EXPECT_EQ(disk.read(key, runtime::DiskCache::Kind::Cubin), cubin);
  EXPECT_EQ(disk.read(content), ptx);                                 // the PTX entry beside it is untouched
  EXPECT_FALSE(disk.read(otherKey, runtime::DiskCache::Kind::Cubin)); // none for sm_80
  EXPECT_FALSE(disk.read(content, runtime::DiskCache::Kind::Cubin));
  const std::string path = disk.pathFor(key, runtime::DiskCache::Kind::Cubin);
  std::string garbled = slurp(path);
  garbled[garbled.size() - 5] ^= 1;
  spit(path, garbled);
  EXPECT_FALSE(disk.read(key, runtime::DiskCache::Kind::Cubin));
  // A PTX entry copied to a cubin's path is not a cubin.
  spit(path, slurp(disk.pathFor(content)));
  EXPECT_FALSE(disk.read(key, runtime::DiskCache::Kind::Cubin));
}

// 16 processes compiling one kernel into one fresh cache directory at once:
// every one gets the kernel, and the entry left behind is intact.
TEST(KernelCache, SixteenProcessesShareOneFreshDirectory) {
  TempDir dir;
  setenv("TK_CACHE_DIR", (dir.path + "/fresh").c_str(), 1);
  kernels::quant::PerTokenCastConfig c{2048, 128, dsl::DType::BF16, false};
  runtime::KernelFactory f = runtime::factoryOf(kernels::quant::buildPerTokenCast, c);
  std::vector<pid_t> children;
  for (int i = 0; i < 16; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      runtime::JitCache cache;
      std::shared_ptr<runtime::CompiledKernel> k;
      _exit(cache.get(f, sm90(), nullptr, k).isOk() && !k->ptx.empty() ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  runtime::JitCache cache;
  std::shared_ptr<runtime::CompiledKernel> k;
  ASSERT_TRUE(cache.get(f, sm90(), nullptr, k).isOk());
  EXPECT_TRUE(k->fromDisk);
  unsetenv("TK_CACHE_DIR");
}

} // namespace
