//===- ProgramIdentity.h - a DSL program's name across processes ----------===//
//
// In a process a program is the address of its build function
// (KernelFactory::program). Across processes the same function of the same
// binary is that address's offset in its ELF object together with the
// object's GNU build id (a hash of its contents, so a rebuilt binary is
// another identity): what the disk cache's index is keyed by, so that a new
// process finds a compiled kernel without running the DSL program.
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace tk::runtime {

/// "<build id hex>+<offset hex>", or "" when the object has no build id (or
/// the address is in none).
std::string programIdentity(const void *program);

} // namespace tk::runtime
