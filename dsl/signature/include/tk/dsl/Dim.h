//===- Dim.h - symbolic sizes: static, dynamic, and arithmetic on them ----===//
//
// A Dim is a size known at compile time (7168) or at launch time ("num_tokens",
// read from a tensor's shape), or an expression of such sizes. The same Dim
// becomes IR inside the kernel (DSL) and is evaluated on the host to size the
// grid (runtime), so the two can never disagree.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace tk::dsl {

class Dim {
public:
  enum class Kind { Constant, Symbol, Add, Mul, CeilDiv, FloorDiv };

  Dim(int64_t value = 0);
  static Dim symbol(const std::string &name);

  Kind kind() const { return node_->kind; }
  bool isStatic() const;
  /// The value of a static Dim (folded through the arithmetic).
  int64_t staticValue() const;
  const std::string &symbolName() const { return node_->name; }
  const Dim &lhs() const { return *node_->lhs; }
  const Dim &rhs() const { return *node_->rhs; }

  /// Evaluates with the given symbol values; throws std::out_of_range on a missing symbol.
  int64_t evaluate(const std::map<std::string, int64_t> &symbols) const;
  std::string str() const;

  friend Dim operator+(const Dim &a, const Dim &b);
  friend Dim operator*(const Dim &a, const Dim &b);
  friend Dim ceil_div(const Dim &a, const Dim &b);
  friend Dim floor_div(const Dim &a, const Dim &b);

private:
  struct Node {
    Kind kind;
    int64_t value = 0;
    std::string name;
    std::shared_ptr<Dim> lhs, rhs;
  };
  static Dim binary(Kind kind, const Dim &a, const Dim &b);
  std::shared_ptr<Node> node_;
};

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace tk::dsl
