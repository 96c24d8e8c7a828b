//===- bundle_command.cpp - `tk bundle`: cubins for deployment ------------===//
//
// A bundle is a disk cache directory (DiskCache.h) that a deployment points
// TK_CACHE_DIR at: its index names each kernel of a program and config
// (KernelIndex.h) and its PTX; `tk bundle` adds the cubin ptxas assembles
// from each PTX for its architecture. A process reading the bundle runs no
// DSL program, no MLIR pipeline and no driver JIT for the kernels it holds.
// Which kernels: those a run of the application compiled into the directory
// (TK_CACHE_DIR=DIR while it runs once: the configs it really uses), and,
// with --all, every registered variant for each --target.
//===----------------------------------------------------------------------===//
#include "tools/tk/commands.h"
#include "tools/tk/output_directory.h"
#include "tools/tk/ptxas.h"

#include "kernels/registry.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/runtime/DiskCache.h"
#include "tk/runtime/JitCache.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace tk::tools {

namespace {

/// Compiles every registered variant for `targets` into the cache at `dir`
/// (index and PTX, as a JIT run would). Returns the failure count.
int compileVariants(const std::string &dir, const std::vector<compiler::Target> &targets) {
  setenv("TK_CACHE_DIR", dir.c_str(), 1); // the JitCache's disk cache
  runtime::JitCache cache;
  int failures = 0;
  for (const compiler::Target &target : targets)
    for (const auto &k : kernels::shippedKernels())
      for (const auto &v : k.variants) {
        if (std::string why = v.whyNot(target); !why.empty()) {
          std::printf("%-52s %-8s skipped: %s\n", v.name.c_str(), target.name.c_str(), why.c_str());
          continue;
        }
        std::shared_ptr<runtime::CompiledKernel> out;
        if (runtime::Status s = cache.get(v.build, target, nullptr, out); !s.isOk()) {
          std::printf("%-52s %-8s FAILED: %s\n", v.name.c_str(), target.name.c_str(), s.message().c_str());
          ++failures;
        }
      }
  return failures;
}

/// The architecture a PTX module was written for (".target sm_90a"), or "".
std::string ptxTarget(const std::string &ptx) {
  std::smatch m;
  return std::regex_search(ptx, m, std::regex(R"(\.target\s+(sm_(\d+)a?))")) ? m[1].str() : "";
}

} // namespace

int cmdBundle(const std::vector<std::string> &args) {
  std::string dir;
  std::vector<compiler::Target> targets;
  bool all = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--all")
      all = true;
    else if (args[i] == "--target" && i + 1 < args.size()) {
      std::optional<compiler::Target> t = compiler::findTarget(args[++i]);
      if (!t) {
        std::fprintf(stderr, "tk bundle: unknown target '%s' (sm_80, sm_90a, sm_100a)\n", args[i].c_str());
        return 2;
      }
      targets.push_back(*t);
    } else if (dir.empty() && !args[i].empty() && args[i][0] != '-')
      dir = args[i];
    else {
      std::fprintf(stderr, "tk bundle: unknown argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "tk bundle: name the bundle's directory (tk bundle DIR [--all] [--target T]...)\n");
    return 2;
  }
  if (!targets.empty() && !all) {
    std::fprintf(stderr,
                 "tk bundle: --target chooses what --all compiles (a recorded directory's PTX names its own)\n");
    return 2;
  }
  const std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    std::fprintf(stderr, "tk bundle: needs the CUDA toolkit's ptxas (set TK_PTXAS)\n");
    return 1;
  }
  if (!makeDirectory("tk bundle", dir))
    return 1;
  runtime::DiskCache disk = runtime::DiskCache::at(dir);
  if (!disk.enabled()) {
    std::fprintf(stderr, "tk bundle: cannot use '%s' as a directory\n", dir.c_str());
    return 1;
  }
  int failures = 0;
  if (all)
    failures += compileVariants(dir, targets.empty() ? std::vector<compiler::Target>{*compiler::findTarget("sm_90a")}
                                                     : targets);
  const std::vector<std::string> ptxKeys = disk.keys(runtime::DiskCache::Kind::Ptx);
  const size_t indexed = disk.keys(runtime::DiskCache::Kind::Index).size();
  int assembled = 0, kept = 0;
  const std::string scratch = dir + "/.bundle." + std::to_string(getpid());
  for (const std::string &key : ptxKeys) {
    std::optional<std::string> ptx = disk.read(key);
    const std::string arch = ptx ? ptxTarget(*ptx) : "";
    std::smatch m;
    if (arch.empty() || !std::regex_match(arch, m, std::regex(R"(sm_(\d+)(\d)a?)"))) {
      std::printf("%s: no .target in its PTX, skipped\n", key.substr(0, 16).c_str());
      ++failures;
      continue;
    }
    const std::string cubinKey = runtime::aotCubinKey(key, std::stoi(m[1]), std::stoi(m[2]));
    if (disk.read(cubinKey, runtime::DiskCache::Kind::Cubin)) {
      ++kept;
      continue;
    }
    std::ofstream(scratch + ".ptx") << *ptx;
    PtxasReport r = runPtxas(ptxas, scratch + ".ptx", arch, scratch + ".cubin");
    std::ifstream in(scratch + ".cubin", std::ios::binary);
    std::ostringstream cubin;
    cubin << in.rdbuf();
    if (!r.ok || cubin.str().empty()) {
      std::printf("%s (%s): %s\n", key.substr(0, 16).c_str(), arch.c_str(), r.ok ? "no cubin" : r.error.c_str());
      ++failures;
      continue;
    }
    disk.write(cubinKey, cubin.str(), runtime::DiskCache::Kind::Cubin);
    ++assembled;
  }
  std::remove((scratch + ".ptx").c_str());
  std::remove((scratch + ".cubin").c_str());
  std::printf("%s: %zu indexed kernels, %zu PTX modules; %d cubins assembled by ptxas, %d already there; %d "
              "failures\n",
              dir.c_str(), indexed, ptxKeys.size(), assembled, kept, failures);
  return failures ? 1 : 0;
}

} // namespace tk::tools
