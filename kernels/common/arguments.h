//===- arguments.h - an entry point's tensor contract, checked generically -===//
//
// The checks a tensor's descriptor allows (presence, rank, dtype, sizes,
// strides) are declared once per entry point, as its contract, and checked
// here with messages that name the argument and the size that disagrees:
//
//   Arguments args("tk_batched_transpose");
//   args.tensor("x", x, {"B", "R", "C"}, {TK_BF16, TK_F32, ...}, Layout::UnitInnerStride);
//   args.tensor("out", out, {"B", "C", "R"}, {x->dtype}, Layout::Contiguous);
//   if (!args.ok()) return report(args.status());
//   int64_t rows = args["R"];
//
// A size is a symbol bound by the first tensor that has it (later ones must
// agree), a number, or a symbol the caller defines from others (define("Kb",
// ceilDiv(K, g))). The first failure is kept; later checks do nothing.
// What only the operator knows (a group size that must divide K, a flag that
// needs another) stays in the operator's own checks.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/runtime/Status.h"
#include "tk/tk.h"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace tk::kernels {

/// One size of a contract: a symbol ("M") or a number.
struct Extent {
  Extent(const char *symbol) : symbol(symbol) {}
  Extent(std::string symbol) : symbol(std::move(symbol)) {}
  Extent(int64_t value) : value(value) {}
  Extent(int value) : value(value) {}
  std::string symbol; ///< "" for a number
  int64_t value = -1;
};

enum class Layout {
  Strided,         ///< any non-negative strides
  UnitInnerStride, ///< the innermost dimension is contiguous (rows may be strided)
  Contiguous,      ///< row-major contiguous
};

class Arguments {
public:
  explicit Arguments(const char *op) : op_(op) {}

  /// Checks `t` against its contract: not null (unless `optional`, then a
  /// null is accepted and binds nothing), a valid descriptor
  /// (kernels/common/validate.h's checkTensor), one of `dtypes` (empty: any),
  /// the sizes of `shape` (its rank), the layout. Returns whether `t` is
  /// present and valid.
  bool tensor(const char *name, const tk_tensor *t, const std::vector<Extent> &shape,
              const std::vector<tk_dtype> &dtypes, Layout layout = Layout::Strided, bool optional = false);
  /// Binds a derived symbol (after the symbols it is made of are bound).
  void define(const std::string &symbol, int64_t value, const std::string &meaning = "");
  /// A bound symbol's value (throws std::logic_error for an unbound one: a
  /// contract mistake, not a caller's).
  int64_t operator[](const std::string &symbol) const;
  bool bound(const std::string &symbol) const { return symbols_.count(symbol) != 0; }
  /// Fails the call with `what` (prefixed by the entry point) unless `condition`.
  bool require(bool condition, const std::string &what);

  bool ok() const { return status_.isOk(); }
  const runtime::Status &status() const { return status_; }

private:
  struct Binding {
    int64_t value;
    std::string from; ///< "x dimension 0", or the meaning given to define()
  };
  bool fail(const std::string &what);
  std::string op_;
  runtime::Status status_ = runtime::Status::ok();
  std::map<std::string, Binding> symbols_;
};

} // namespace tk::kernels
