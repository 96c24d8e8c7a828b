//===- Launcher.cpp -------------------------------------------------------===//
#include "tk/runtime/Launcher.h"
#include "tk/runtime/CallTensors.h"

#include <stdexcept>

namespace tk::runtime {

std::vector<const tk_tensor *> withDeclaredRanks(const dsl::KernelSignature &sig,
                                                 const std::vector<const tk_tensor *> &tensors,
                                                 std::vector<tk_tensor> &storage) {
  std::vector<const tk_tensor *> out(tensors);
  storage.reserve(tensors.size()); // the pointers into it stay valid
  for (size_t i = 0; i < tensors.size() && i < sig.tensors.size(); ++i) {
    const tk_tensor *t = tensors[i];
    const std::vector<dsl::Dim> &shape = sig.tensors[i].shape;
    if (!t || t->ndim < 0 || (size_t)t->ndim >= shape.size() || shape.size() > TK_MAX_DIMS)
      continue;
    size_t lead = shape.size() - t->ndim;
    bool unitLead = true;
    for (size_t d = 0; d < lead; ++d)
      unitLead &= shape[d].isStatic() && shape[d].staticValue() == 1;
    if (!unitLead)
      continue;
    tk_tensor p = *t;
    p.ndim = (int32_t)shape.size();
    for (int d = t->ndim - 1; d >= 0; --d) {
      p.shape[d + lead] = t->shape[d];
      p.strides[d + lead] = t->strides[d];
    }
    // A size-1 dimension's stride is never used to address; the parameter's own (if static) keeps bindTensors' check.
    for (size_t d = 0; d < lead; ++d) {
      p.shape[d] = 1;
      int64_t declared = sig.tensors[i].strides[d];
      p.strides[d] = declared != dsl::kDynamicStride ? declared : 0;
    }
    storage.push_back(p);
    out[i] = &storage.back();
  }
  return out;
}

Status bindTensors(const dsl::KernelSignature &sig, const std::vector<const tk_tensor *> &tensors,
                   std::map<std::string, int64_t> &symbols) {
  if (tensors.size() != sig.tensors.size())
    return Status::invalid(sig.name + " takes " + std::to_string(sig.tensors.size()) + " tensors, got " +
                           std::to_string(tensors.size()));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const dsl::TensorParam &p = sig.tensors[i];
    const tk_tensor *t = tensors[i];
    std::string where = sig.name + ": tensor '" + p.name + "'";
    if (!t)
      return Status::invalid(where + " is null");
    if ((int)t->dtype != (int)p.dtype)
      return Status::invalid(where + " must have dtype " + dsl::name(p.dtype));
    if ((size_t)t->ndim != p.shape.size())
      return Status::invalid(where + " must have " + std::to_string(p.shape.size()) + " dimensions, got " +
                             std::to_string(t->ndim));
    // An empty tensor addresses nothing: its strides may be anything (NumPy's (0, 64) has (0, 0)).
    bool empty = false;
    for (size_t d = 0; d < p.shape.size(); ++d)
      empty |= t->shape[d] == 0;
    for (size_t d = 0; d < p.shape.size(); ++d) {
      const dsl::Dim &dim = p.shape[d];
      int64_t size = t->shape[d];
      if (size < 0)
        return Status::invalid(where + " has a negative size");
      if (dim.isStatic()) {
        if (dim.staticValue() != size)
          return Status::invalid(where + " dimension " + std::to_string(d) + " must be " +
                                 std::to_string(dim.staticValue()) + ", got " + std::to_string(size));
      } else if (dim.kind() == dsl::Dim::Kind::Symbol) {
        auto [it, inserted] = symbols.emplace(dim.symbolName(), size);
        if (!inserted && it->second != size)
          return Status::invalid(where + " dimension " + std::to_string(d) + " is " + std::to_string(size) +
                                 " but " + dim.symbolName() + " is " + std::to_string(it->second));
      }
      if (p.strides[d] != dsl::kDynamicStride && p.strides[d] != t->strides[d] && size > 1 && !empty)
        return Status::invalid(where + " stride " + std::to_string(d) + " must be " + std::to_string(p.strides[d]) +
                               ", got " + std::to_string(t->strides[d]));
    }
    int64_t elt = dsl::byteSize(p.dtype);
    if (reinterpret_cast<uintptr_t>(t->data) % p.alignBytes)
      return Status::invalid(where + " pointer is not " + std::to_string(p.alignBytes) + "-byte aligned");
    for (size_t d = 0; d < p.shape.size() && !empty; ++d)
      if (p.strides[d] == dsl::kDynamicStride && (t->strides[d] * elt) % p.alignBytes && t->shape[d] > 1)
        return Status::invalid(where + " stride " + std::to_string(d) + " is not a multiple of " +
                               std::to_string(p.alignBytes) + " bytes");
  }
  // Sizes the kernel computes from others (e.g. ceil_div(num_tokens, 128)
  // rows of scale factors): once every size is known, each must match.
  for (size_t i = 0; i < tensors.size(); ++i) {
    const dsl::TensorParam &p = sig.tensors[i];
    for (size_t d = 0; d < p.shape.size(); ++d) {
      const dsl::Dim &dim = p.shape[d];
      if (dim.isStatic() || dim.kind() == dsl::Dim::Kind::Symbol)
        continue;
      int64_t want = 0;
      try {
        want = dim.evaluate(symbols);
      } catch (const std::out_of_range &) {
        continue; // a size no tensor binds; the grid's evaluation reports it
      }
      if (tensors[i]->shape[d] != want)
        return Status::invalid(sig.name + ": tensor '" + p.name + "' dimension " + std::to_string(d) + " must be " +
                               dim.str() + " = " + std::to_string(want) + ", got " +
                               std::to_string(tensors[i]->shape[d]));
    }
  }
  for (const auto &[name, multiple] : sig.symbolMultiples) {
    auto it = symbols.find(name);
    if (it != symbols.end() && it->second % multiple)
      return Status::invalid(sig.name + ": " + name + " is " + std::to_string(it->second) +
                             ", which the kernel needs to be a multiple of " + std::to_string(multiple));
  }
  // A kernel's read-only parameters may be noalias and loaded through the non-coherent cache (readonly_loads,
  // tile-noalias-params): an output sharing memory with another parameter would be read or written behind the
  // compiler's back. Refused on the CPU path too, for every kernel, so that a schedule never changes the answer.
  // (Five tensors: about 0.3 µs a launch on a 2-core build machine, against a warm call of about 6 µs.)
  std::vector<NamedTensor> inputs, outputs;
  for (size_t i = 0; i < tensors.size(); ++i)
    (sig.tensors[i].isOutput ? outputs : inputs).push_back({sig.tensors[i].name.c_str(), tensors[i]});
  return outputsOverlapNothing(sig.name.c_str(), inputs, outputs,
                               "a kernel's output must not share memory with another of its tensors (the compiler "
                               "takes them as not aliased)");
}

Status checkScalars(const dsl::KernelSignature &sig, const std::vector<int64_t> &scalars) {
  if (scalars.size() != sig.scalars.size())
    return {TK_ERROR_INTERNAL, sig.name + ": takes " + std::to_string(sig.scalars.size()) +
                                   " scalar arguments, given " + std::to_string(scalars.size())};
  return Status::ok();
}

PackedArgs packMemrefs(const std::vector<const tk_tensor *> &tensors, const std::vector<int64_t> &scalars) {
  PackedArgs args;
  args.storage.reserve(tensors.size() + scalars.size());
  for (const tk_tensor *t : tensors) {
    std::vector<int64_t> desc;
    desc.push_back((int64_t)(uintptr_t)t->data);
    desc.push_back((int64_t)(uintptr_t)t->data);
    desc.push_back(0);
    for (int i = 0; i < t->ndim; ++i)
      desc.push_back(t->shape[i]);
    for (int i = 0; i < t->ndim; ++i)
      desc.push_back(t->strides[i]);
    args.storage.push_back(std::move(desc));
  }
  for (int64_t v : scalars)
    args.storage.push_back({v});
  for (auto &desc : args.storage)
    for (int64_t &v : desc)
      args.pointers.push_back(&v);
  return args;
}

Status launchGrid(const dsl::KernelSignature &sig, const std::map<std::string, int64_t> &symbols, int smCount,
                  unsigned grid[3], int residentBlocksPerSm) {
  grid[0] = grid[1] = grid[2] = 1;
  int64_t tiles = 1;
  for (size_t i = 0; i < sig.grid.size(); ++i) {
    int64_t n = sig.grid[i].evaluate(symbols);
    if (n == 0) {
      grid[0] = 0; // nothing to do
      return Status::ok();
    }
    if (n < 0 || (!sig.persistentBlocksPerSm && n > (i == 0 ? 0x7FFFFFFFll : 65535ll)))
      return Status::invalid(sig.name + ": grid dimension " + std::to_string(i) + " of " + std::to_string(n) +
                             " blocks is out of range");
    grid[i] = (unsigned)n;
    tiles *= n;
  }
  if (sig.persistentBlocksPerSm) {
    if (smCount < 1)
      return Status::invalid(sig.name + ": a persistent grid needs the device's SM count");
    int64_t perSm = sig.persistentBlocksPerSm;
    if (residentBlocksPerSm > 0)
      perSm = std::min<int64_t>(perSm, residentBlocksPerSm);
    grid[0] = (unsigned)std::min<int64_t>(tiles, (int64_t)smCount * perSm);
    grid[1] = grid[2] = 1;
  }
  return Status::ok();
}

Status refuseEmptyTensors(const dsl::KernelSignature &sig, const std::vector<const tk_tensor *> &tensors) {
  // Masked loads read a tensor's first element in place of out-of-bounds ones
  // (branch-free), so no tensor of a running kernel may be empty.
  for (size_t i = 0; i < tensors.size(); ++i) {
    int64_t n = 1;
    for (int d = 0; d < tensors[i]->ndim; ++d)
      n *= tensors[i]->shape[d];
    if (n == 0)
      return Status::invalid(sig.name + ": tensor '" + sig.tensors[i].name + "' is empty but the grid is not");
  }
  return Status::ok();
}

Status launch(const Driver &d, const CompiledKernel &kernel, const std::vector<const tk_tensor *> &given,
              CUstream stream, int smCount, const std::vector<int64_t> &scalars) {
  const dsl::KernelSignature &sig = kernel.signature;
  std::vector<tk_tensor> promoted;
  const std::vector<const tk_tensor *> tensors = withDeclaredRanks(sig, given, promoted);
  std::map<std::string, int64_t> symbols;
  Status s = checkScalars(sig, scalars);
  if (s.isOk())
    s = bindTensors(sig, tensors, symbols);
  if (!s.isOk())
    return s;
  unsigned grid[3];
  if (!(s = launchGrid(sig, symbols, smCount, grid, kernel.residentBlocksPerSm)).isOk())
    return s;
  if (grid[0] == 0)
    return Status::ok();
  if (!(s = refuseEmptyTensors(sig, tensors)).isOk())
    return s;
  PackedArgs args = packMemrefs(tensors, scalars);
  if (kernel.dependentLaunch && d.cuLaunchKernelEx) {
    // The kernel waits for the one before it itself (tile-dependent-launch), so it may launch during it.
    LaunchAttribute overlap{};
    overlap.id = kLaunchAttrProgrammaticStreamSerialization;
    overlap.value.programmaticStreamSerializationAllowed = 1;
    LaunchConfig config{grid[0], grid[1],  grid[2], (unsigned)sig.threads, 1, 1, (unsigned)kernel.dynamicSharedBytes,
                        stream,  &overlap, 1};
    // A driver or device that refuses the attribute still runs the kernel launched plainly (its wait then
    // returns at once), and reports its own error if that fails too.
    if (d.cuLaunchKernelEx(&config, kernel.function, args.pointers.data(), nullptr) == 0)
      return Status::ok();
  }
  CUresult r = d.cuLaunchKernel(kernel.function, grid[0], grid[1], grid[2], (unsigned)sig.threads, 1, 1,
                                (unsigned)kernel.dynamicSharedBytes, stream,
                                args.pointers.data(), nullptr);
  if (r != 0)
    return {TK_ERROR_LAUNCH, d.describe("cuLaunchKernel", r) + " for " + sig.name};
  return Status::ok();
}

} // namespace tk::runtime
