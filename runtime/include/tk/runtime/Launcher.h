//===- Launcher.h - bind tensors to a kernel's signature and launch it ----===//
#pragma once

#include "tk/runtime/Driver.h"
#include "tk/runtime/JitCache.h"

#include <map>
#include <vector>

namespace tk::runtime {

/// A tensor with fewer dimensions than its parameter stands for one with
/// leading dimensions of size 1 where the parameter's are a static 1: a
/// 1-D [H] weight for a kernel's [1, H] row, which its tiles broadcast
/// along rows. Returns `tensors` with such tensors replaced by their
/// promoted copies, which `storage` holds; others are left for bindTensors
/// to judge.
std::vector<const tk_tensor *> withDeclaredRanks(const dsl::KernelSignature &sig,
                                                 const std::vector<const tk_tensor *> &tensors,
                                                 std::vector<tk_tensor> &storage);

/// Checks `tensors` against the signature (dtypes, ranks, static sizes, the
/// consistency of dynamic sizes, static strides, alignment) and binds the
/// dynamic sizes. Needs no device.
Status bindTensors(const dsl::KernelSignature &sig, const std::vector<const tk_tensor *> &tensors,
                   std::map<std::string, int64_t> &symbols);

/// Kernel arguments as the default MLIR calling convention expands them: per
/// memref (allocated ptr, aligned ptr, offset, sizes..., strides...), and a
/// pointer to each value (cuLaunchKernel's and ExecutionEngine's packed form).
struct PackedArgs {
  std::vector<std::vector<int64_t>> storage;
  std::vector<void *> pointers;
};
/// The kernel's parameters: each tensor's memref descriptor, then each
/// scalar argument's value (i32 and i64 as themselves, f32 as its bits in
/// the low half: the parameter reads the bytes it needs, little-endian).
PackedArgs packMemrefs(const std::vector<const tk_tensor *> &tensors, const std::vector<int64_t> &scalars = {});
/// INTERNAL unless `scalars` holds one value per scalar argument of `sig`.
Status checkScalars(const dsl::KernelSignature &sig, const std::vector<int64_t> &scalars);

/// The launch grid of `sig` for the bound sizes: its extents, or for a
/// persistent grid min(tiles, smCount x blocks per SM) blocks in x, where
/// blocks per SM is the signature's, capped by `residentBlocksPerSm` when
/// that is positive (the blocks an SM holds at once: a block that has to
/// wait for another to finish would run its whole share of the tiles after
/// the others). Zero blocks in some dimension: nothing to launch.
Status launchGrid(const dsl::KernelSignature &sig, const std::map<std::string, int64_t> &symbols, int smCount,
                  unsigned grid[3], int residentBlocksPerSm = 0);

/// An error naming the first empty tensor: a kernel whose grid has blocks
/// reads every tensor's first element (its masked loads' stand-in address).
/// The CPU path refuses them too, so that CPU tests find what a GPU would.
Status refuseEmptyTensors(const dsl::KernelSignature &sig, const std::vector<const tk_tensor *> &tensors);

/// Binds, evaluates the grid and launches on `stream`. A grid with no block
/// launches nothing and succeeds.
Status launch(const Driver &driver, const CompiledKernel &kernel, const std::vector<const tk_tensor *> &tensors,
              CUstream stream, int smCount, const std::vector<int64_t> &scalars = {});

} // namespace tk::runtime
