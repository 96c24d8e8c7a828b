//===- Dim.cpp ------------------------------------------------------------===//
#include "tk/dsl/Dim.h"

#include <stdexcept>

namespace tk::dsl {

Dim::Dim(int64_t value) : node_(std::make_shared<Node>()) {
  node_->kind = Kind::Constant;
  node_->value = value;
}

Dim Dim::symbol(const std::string &name) {
  Dim d;
  d.node_->kind = Kind::Symbol;
  d.node_->name = name;
  return d;
}

bool Dim::isStatic() const {
  switch (kind()) {
  case Kind::Constant:
    return true;
  case Kind::Symbol:
    return false;
  default:
    return lhs().isStatic() && rhs().isStatic();
  }
}

int64_t Dim::staticValue() const { return evaluate({}); }

int64_t Dim::evaluate(const std::map<std::string, int64_t> &symbols) const {
  switch (kind()) {
  case Kind::Constant:
    return node_->value;
  case Kind::Symbol: {
    auto it = symbols.find(node_->name);
    if (it == symbols.end())
      throw std::out_of_range("no value for size '" + node_->name + "'");
    return it->second;
  }
  case Kind::Add:
    return lhs().evaluate(symbols) + rhs().evaluate(symbols);
  case Kind::Mul:
    return lhs().evaluate(symbols) * rhs().evaluate(symbols);
  case Kind::CeilDiv:
    return ceil_div(lhs().evaluate(symbols), rhs().evaluate(symbols));
  case Kind::FloorDiv:
    return lhs().evaluate(symbols) / rhs().evaluate(symbols);
  }
  return 0;
}

std::string Dim::str() const {
  switch (kind()) {
  case Kind::Constant:
    return std::to_string(node_->value);
  case Kind::Symbol:
    return node_->name;
  case Kind::Add:
    return "(" + lhs().str() + " + " + rhs().str() + ")";
  case Kind::Mul:
    return "(" + lhs().str() + " * " + rhs().str() + ")";
  case Kind::CeilDiv:
    return "ceil_div(" + lhs().str() + ", " + rhs().str() + ")";
  case Kind::FloorDiv:
    return "(" + lhs().str() + " / " + rhs().str() + ")";
  }
  return "?";
}

Dim Dim::binary(Kind kind, const Dim &a, const Dim &b) {
  Dim d;
  d.node_->kind = kind;
  d.node_->lhs = std::make_shared<Dim>(a);
  d.node_->rhs = std::make_shared<Dim>(b);
  if (d.isStatic())
    return Dim(d.staticValue());
  return d;
}

Dim operator+(const Dim &a, const Dim &b) { return Dim::binary(Dim::Kind::Add, a, b); }
Dim operator*(const Dim &a, const Dim &b) { return Dim::binary(Dim::Kind::Mul, a, b); }
Dim ceil_div(const Dim &a, const Dim &b) { return Dim::binary(Dim::Kind::CeilDiv, a, b); }
Dim floor_div(const Dim &a, const Dim &b) { return Dim::binary(Dim::Kind::FloorDiv, a, b); }

} // namespace tk::dsl
