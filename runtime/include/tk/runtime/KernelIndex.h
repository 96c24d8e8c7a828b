//===- KernelIndex.h - which compiled kernel a program makes of a config ---===//
//
// The disk cache finds PTX and cubins by content: a hash of the IR the DSL
// program builds, so a new process has to build it (start MLIR, run the
// program) before it can look. The index skips that on a warm start: an
// entry keyed by the program's identity across processes (its binary's
// build id and offset, ProgramIdentity.h), the config, the target, the
// compile options and the compiler's build id holds the content key and the
// launch contract (SignatureText.h). A rebuilt binary has another build id,
// so an edited program never finds its old kernel.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/Target/Targets.h"
#include "tk/dsl/Signature.h"
#include "tk/runtime/DiskCache.h"
#include "tk/runtime/KernelFactory.h"

#include <string>

namespace tk::runtime {

/// The index key of `factory`'s kernel, or "" when the program has no
/// identity across processes (an anonymous factory, a binary without a
/// build id).
std::string indexKey(const KernelFactory &factory, const compiler::Target &target, const std::string &optionsTag);

/// The entry under `key`: its content key and signature.
bool readIndex(const DiskCache &disk, const std::string &key, std::string &contentKey, dsl::KernelSignature &sig);
/// Best effort (a signature that cannot be written is not indexed).
void writeIndex(const DiskCache &disk, const std::string &key, const std::string &contentKey,
                const dsl::KernelSignature &sig);

} // namespace tk::runtime
