//===- BuiltKernel.cpp ----------------------------------------------------===//
#include "tk/compiler/BuiltKernel.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

namespace tk::compiler {

std::string contentHash(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // The generic form names every attribute and type in full; without debug
  // info, locations (the kernel's name, already in the IR) do not count.
  module->print(os, mlir::OpPrintingFlags().printGenericOpForm().enableDebugInfo(false));
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(text));
  std::string hex;
  for (uint8_t byte : digest) {
    static const char digits[] = "0123456789abcdef";
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  return hex;
}

} // namespace tk::compiler
