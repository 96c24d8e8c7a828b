//===- dsl.hpp - tk for kernel authors: write, compile and run tile kernels -===//
//
// The one header a kernel author includes (CMake: find_package(tk CONFIG COMPONENTS dsl),
// link tk::dsl). It brings the DSL (tk/dsl/KernelBuilder.h: tensors, tiles,
// grids, maps, reductions, pipelines) and three things to do with a kernel:
//
//   tk::BuiltKernel buildScale(mlir::MLIRContext &ctx) {
//     tk::KernelBuilder k(ctx, "scale_rows", 128);
//     tk::Dim rows = k.dynamic("rows");
//     tk::Tensor x = k.input("x", {rows, 1024}, tk::DType::BF16);
//     tk::Tensor y = k.output("y", {rows, 1024}, tk::DType::F32);
//     k.grid({ceil_div(rows, 4)}, [&](const std::vector<tk::Index> &b) {
//       k.store(y, {b[0] * 4, k.index(0)}, k.load(x, {b[0] * 4, k.index(0)}, {4, 1024}).to(tk::DType::F32) * 2.0);
//     });
//     return k.finish();
//   }
//
//   std::string ptx;
//   tk::compile(tk::factoryOf(buildScale), "sm_90a", ptx);               // PTX
//   tk::run(ctx, tk::factoryOf(buildScale), {&x, &y}, stream);           // GPU, or CPU for host tensors
//   tk::registerKernel("scale_rows", {{"scale_rows", tk::factoryOf(buildScale)}});
//   return tk::toolMain(argc, argv);   // `prog list | compile | run` over registered kernels
//
// Every function returns a tk_status and sets tk_last_error() as the C API
// does; DSL mistakes come back as TK_ERROR_COMPILE naming the op, the shapes
// and the author's source line. A program that links tk::dsl has the whole
// C API of tk.h as well (tk_context_create, the shipped operators): link it
// instead of tk::tk, not beside it. docs/dsl.md is the guide.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/dsl/KernelBuilder.h"
#include "tk/dsl/Select.h"
#include "tk/runtime/KernelFactory.h"
#include "tk/tk.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tk {

using dsl::BuiltKernel;
using dsl::Dim;
using dsl::DType;
using dsl::Index;
using dsl::KernelBuilder;
using dsl::Scalar;
using dsl::Shared;
using dsl::SourceLine;
using dsl::Tensor;
using dsl::Tile;
using dsl::Uniform;
using runtime::factoryOf;
using runtime::KernelFactory;

/// The PTX of `kernel` for `target` ("sm_80", "sm_90a" or "sm_100a"), through
/// the whole pipeline (no GPU, no driver needed).
tk_status compile(const KernelFactory &kernel, const std::string &target, std::string &ptx);

/// Compiles (once per context, then cached in memory and on disk; a new
/// process finds it through the disk index without running the program, so
/// a kernel's IR must depend only on its config, its target and the code of
/// the binary that holds its build function: put anything else it reads in
/// the config's key) and runs
/// `kernel` on `tensors`, in the kernel's parameter order: on the CPU path
/// when they are host tensors, else on the context's CUDA device,
/// asynchronously on `stream`. `scalars`: one value per scalar argument
/// (i32 and i64 as themselves, f32 as f32Bits(value)).
tk_status run(tk_context ctx, const KernelFactory &kernel, const std::vector<const tk_tensor *> &tensors,
              tk_stream stream = nullptr, const std::vector<int64_t> &scalars = {});

/// An f32 scalar argument as run() takes it.
int64_t f32Bits(float value);

/// One kernel as tooling sees it: named variants (one config each), and
/// optionally a self-check that runs them on `ctx` and returns "" when the
/// results are right, else what was wrong (what `run` reports).
struct UserKernel {
  std::string name;
  std::vector<std::pair<std::string, KernelFactory>> variants;
  std::string summary;
  std::function<std::string(tk_context ctx)> check;
};

/// Makes a kernel visible to toolMain(). Names are unique, non-empty and
/// file-name safe (letters, digits, '_', '.', '-'), as are variant names.
tk_status registerKernel(UserKernel kernel);
/// The kernels registered so far, in registration order (a copy: other
/// threads may register meanwhile).
std::vector<UserKernel> registeredKernels();

/// The `tk` command's kernel tooling over the registered kernels, for a
/// kernel author's own program (its main() registers, then returns this):
///   list                                         names, summaries, variants
///   compile (--all | NAME...) [--target T]... -o DIR
///                                                PTX per variant and target, with ptxas's
///                                                registers, spills and shared memory
///   run [NAME...]                                each kernel's check (its own tensors: host or device)
/// argv[0] is the program; returns the process's exit status.
int toolMain(int argc, char **argv);

} // namespace tk
