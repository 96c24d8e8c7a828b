//===- SignatureText.cpp --------------------------------------------------===//
#include "tk/dsl/SignatureText.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace tk::dsl {

namespace {

constexpr const char *kHeader = "tk-signature 1";

bool writable(const std::string &name) {
  if (name.empty())
    return false;
  for (char c : name)
    if (c == '(' || c == ')' || c == '$' || std::isspace((unsigned char)c))
      return false;
  return true;
}

bool writeDim(const Dim &d, std::ostream &os) {
  switch (d.kind()) {
  case Dim::Kind::Constant:
    os << d.staticValue();
    return true;
  case Dim::Kind::Symbol:
    if (!writable(d.symbolName()))
      return false;
    os << '$' << d.symbolName();
    return true;
  default:
    break;
  }
  const char *op = d.kind() == Dim::Kind::Add       ? "add"
                   : d.kind() == Dim::Kind::Mul     ? "mul"
                   : d.kind() == Dim::Kind::CeilDiv ? "cdiv"
                                                    : "fdiv";
  os << '(' << op << ' ';
  if (!writeDim(d.lhs(), os))
    return false;
  os << ' ';
  if (!writeDim(d.rhs(), os))
    return false;
  os << ')';
  return true;
}

/// Tokens: "(", ")", and words.
bool nextToken(std::istream &is, std::string &tok) {
  tok.clear();
  char c;
  while (is.get(c) && std::isspace((unsigned char)c)) {
  }
  if (!is)
    return false;
  if (c == '(' || c == ')') {
    tok = c;
    return true;
  }
  tok = c;
  while (is.peek() != EOF && !std::isspace(is.peek()) && is.peek() != '(' && is.peek() != ')')
    tok += (char)is.get();
  return true;
}

/// A size expression; `depth` bounds the nesting (damaged text must not
/// exhaust the stack).
bool readDim(std::istream &is, Dim &out, int depth = 0) {
  std::string tok;
  if (depth > 64 || !nextToken(is, tok))
    return false;
  if (tok == "(") {
    std::string op;
    Dim a, b;
    if (!nextToken(is, op) || !readDim(is, a, depth + 1) || !readDim(is, b, depth + 1) || !nextToken(is, tok) ||
        tok != ")")
      return false;
    // Refused before Dim folds constants: a constant divisor must be positive.
    if ((op == "cdiv" || op == "fdiv") && b.isStatic() && b.staticValue() <= 0)
      return false;
    constexpr int64_t kLimit = int64_t(1) << 48;
    if (op == "mul" && a.isStatic() && b.isStatic() && a.staticValue() != 0 &&
        std::abs(b.staticValue()) > kLimit / std::abs(a.staticValue()))
      return false;
    if (op == "add")
      out = a + b;
    else if (op == "mul")
      out = a * b;
    else if (op == "cdiv")
      out = ceil_div(a, b);
    else if (op == "fdiv")
      out = floor_div(a, b);
    else
      return false;
    return true;
  }
  if (tok[0] == '$') {
    out = Dim::symbol(tok.substr(1));
    return tok.size() > 1;
  }
  try {
    size_t used = 0;
    const int64_t v = std::stoll(tok, &used);
    if (v < -(int64_t(1) << 48) || v > (int64_t(1) << 48)) // no size is near int64's edge: folding must not wrap
      return false;
    out = Dim(v);
    return used == tok.size();
  } catch (const std::exception &) {
    return false;
  }
}

} // namespace

std::optional<std::string> writeSignature(const KernelSignature &s) {
  std::ostringstream os;
  if (!writable(s.name))
    return std::nullopt;
  os << kHeader << "\nname " << s.name << "\nthreads " << s.threads << "\npersistent " << s.persistentBlocksPerSm
     << "\ngrid " << s.grid.size();
  for (const Dim &d : s.grid) {
    os << ' ';
    if (!writeDim(d, os))
      return std::nullopt;
  }
  for (const auto &[symbol, multiple] : s.symbolMultiples) {
    if (!writable(symbol))
      return std::nullopt;
    os << "\nmultiple " << symbol << ' ' << multiple;
  }
  for (const TensorParam &t : s.tensors) {
    if (!writable(t.name))
      return std::nullopt;
    os << "\ntensor " << t.name << ' ' << (int)t.dtype << ' ' << t.alignBytes << ' ' << (t.isOutput ? 1 : 0) << ' '
       << t.shape.size();
    for (const Dim &d : t.shape) {
      os << ' ';
      if (!writeDim(d, os))
        return std::nullopt;
    }
    for (int64_t stride : t.strides)
      os << ' ' << (stride == kDynamicStride ? std::string("?") : std::to_string(stride));
  }
  for (const ScalarParam &p : s.scalars) {
    if (!writable(p.name))
      return std::nullopt;
    os << "\nscalar " << p.name << ' ' << (int)p.dtype;
  }
  os << "\nend\n";
  return os.str();
}

bool readSignature(const std::string &text, KernelSignature &out, std::string &error) {
  std::istringstream in(text);
  std::string line;
  KernelSignature s;
  int lineNo = 0;
  auto fail = [&](const std::string &why) {
    error = "signature line " + std::to_string(lineNo) + ": " + why;
    return false;
  };
  if (!std::getline(in, line) || line != kHeader)
    return fail("not a tk-signature 1 header");
  ++lineNo;
  bool ended = false;
  while (std::getline(in, line)) {
    ++lineNo;
    std::istringstream ls(line);
    std::string what;
    ls >> what;
    if (what == "name") {
      ls >> s.name;
    } else if (what == "threads") {
      ls >> s.threads;
    } else if (what == "persistent") {
      ls >> s.persistentBlocksPerSm;
    } else if (what == "grid") {
      size_t n = 0;
      ls >> n;
      if (!ls || n < 1 || n > 3)
        return fail("a grid has 1 to 3 dimensions");
      s.grid.resize(n);
      for (Dim &d : s.grid)
        if (!readDim(ls, d))
          return fail("a grid size does not parse");
    } else if (what == "multiple") {
      std::string symbol;
      int64_t m = 0;
      ls >> symbol >> m;
      s.symbolMultiples[symbol] = m;
    } else if (what == "tensor") {
      TensorParam t;
      int dtype = 0, isOutput = 0;
      size_t rank = 0;
      ls >> t.name >> dtype >> t.alignBytes >> isOutput >> rank;
      if (!ls || rank > 8)
        return fail("a tensor's header does not parse");
      t.dtype = (DType)dtype, t.isOutput = isOutput != 0;
      t.shape.resize(rank);
      for (Dim &d : t.shape)
        if (!readDim(ls, d))
          return fail("a size of tensor '" + t.name + "' does not parse");
      for (size_t i = 0; i < rank; ++i) {
        std::string stride;
        ls >> stride;
        if (stride.empty())
          return fail("tensor '" + t.name + "' lacks a stride");
        try {
          t.strides.push_back(stride == "?" ? kDynamicStride : std::stoll(stride));
        } catch (const std::exception &) {
          return fail("a stride of tensor '" + t.name + "' does not parse");
        }
      }
      s.tensors.push_back(std::move(t));
    } else if (what == "scalar") {
      ScalarParam p;
      int dtype = 0;
      ls >> p.name >> dtype;
      p.dtype = (DType)dtype;
      s.scalars.push_back(p);
    } else if (what == "end") {
      ended = true;
      break;
    } else {
      return fail("unknown field '" + what + "'");
    }
    if (ls.fail())
      return fail("'" + what + "' does not parse");
    std::string extra;
    if (ls >> extra)
      return fail("'" + what + "' is followed by '" + extra + "'");
  }
  if (!ended)
    return fail("no end line (truncated)");
  if (s.name.empty() || s.grid.empty())
    return fail("no name or no grid");
  // What the launcher divides by or indexes with must be what the DSL writes.
  auto validType = [](DType t) { return (int)t >= 0 && (int)t <= (int)DType::I16; };
  if (s.threads < 1 || s.threads > 1024 || s.persistentBlocksPerSm < 0)
    return fail("threads or persistent blocks out of range");
  for (const auto &[symbol, multiple] : s.symbolMultiples)
    if (multiple < 1)
      return fail("multiple of '" + symbol + "' must be positive");
  for (const TensorParam &t : s.tensors)
    if (!validType(t.dtype) || t.alignBytes < 1 || (t.alignBytes & (t.alignBytes - 1)) || t.alignBytes > 256)
      return fail("tensor '" + t.name + "' has an unknown dtype or an alignment that is not a power of two");
  for (const ScalarParam &p : s.scalars)
    if (!validType(p.dtype))
      return fail("scalar '" + p.name + "' has an unknown dtype");
  out = std::move(s);
  return true;
}

} // namespace tk::dsl
