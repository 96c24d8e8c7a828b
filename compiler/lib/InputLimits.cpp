//===- InputLimits.cpp ----------------------------------------------------===//
#include "tk/compiler/InputLimits.h"

#include "llvm/Support/MemoryBuffer.h"

namespace tk::compiler {

bool checkNestingDepth(llvm::SourceMgr &sourceMgr, unsigned bufferId) {
  llvm::StringRef text = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') { // a string literal, with escapes
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
    } else if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > kMaxNestingDepth) {
        sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(text.data() + i), llvm::SourceMgr::DK_Error,
                               "input nests more than " + llvm::Twine(kMaxNestingDepth) +
                                   " levels deep here; tk-opt refuses it (the parser would overflow its stack)");
        return false;
      }
    } else if ((c == '}' || c == ')' || c == ']' || (c == '>' && (i == 0 || text[i - 1] != '-'))) && depth > 0) {
      --depth;
    }
  }
  return true;
}

} // namespace tk::compiler
