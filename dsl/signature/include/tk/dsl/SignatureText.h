//===- SignatureText.h - a kernel's launch contract as text ---------------===//
//
// What the runtime needs to launch a kernel it did not build in this
// process (the disk cache's index, a bundle): the KernelSignature written as
// lines of text and read back. Sizes are prefix expressions: 7168, $tokens,
// (cdiv $tokens 4), (add ...), (mul ...), (fdiv ...).
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/dsl/Signature.h"

#include <optional>
#include <string>

namespace tk::dsl {

/// The signature as text; nullopt when a name cannot be written (empty, or
/// with whitespace or parentheses).
std::optional<std::string> writeSignature(const KernelSignature &signature);

/// Reads writeSignature's text; false with `error` saying where it stopped.
bool readSignature(const std::string &text, KernelSignature &out, std::string &error);

} // namespace tk::dsl
