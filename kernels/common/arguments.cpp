//===- arguments.cpp ------------------------------------------------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/validate.h"

#include <stdexcept>

namespace tk::kernels {

using runtime::Status;

namespace {

std::string shapeText(const tk_tensor *t) {
  std::string s = "(";
  for (int i = 0; i < t->ndim; ++i)
    s += (i ? ", " : "") + std::to_string(t->shape[i]);
  return s + (t->ndim == 1 ? ",)" : ")");
}

std::string contractText(const std::vector<Extent> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (shape[i].symbol.empty() ? std::to_string(shape[i].value) : shape[i].symbol);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string dtypeList(const std::vector<tk_dtype> &dtypes) {
  std::string s;
  for (size_t i = 0; i < dtypes.size(); ++i)
    s += std::string(i == 0 ? "" : i + 1 == dtypes.size() ? " or " : ", ") + dtypeName(dtypes[i]);
  return s;
}

} // namespace

bool Arguments::fail(const std::string &what) {
  if (status_.isOk())
    status_ = Status::invalid(op_ + ": " + what);
  return false;
}

bool Arguments::require(bool condition, const std::string &what) { return ok() && (condition || fail(what)); }

void Arguments::define(const std::string &symbol, int64_t value, const std::string &meaning) {
  symbols_[symbol] = {value, meaning.empty() ? symbol : meaning};
}

int64_t Arguments::operator[](const std::string &symbol) const {
  auto it = symbols_.find(symbol);
  if (it == symbols_.end())
    throw std::logic_error(op_ + ": the contract reads the unbound size " + symbol);
  return it->second.value;
}

bool Arguments::tensor(const char *name, const tk_tensor *t, const std::vector<Extent> &shape,
                       const std::vector<tk_dtype> &dtypes, Layout layout, bool optional) {
  if (!ok())
    return false;
  const std::string arg = name;
  if (!t)
    return optional ? false : fail(arg + " is null");
  if (Status s = checkTensor(op_.c_str(), name, t, (int)shape.size()); !s.isOk()) {
    status_ = s;
    return false;
  }
  if (!dtypes.empty()) {
    bool allowed = false;
    for (tk_dtype d : dtypes)
      allowed |= d == t->dtype;
    if (!allowed)
      return fail(arg + " must be " + dtypeList(dtypes) + ", got " + dtypeName(t->dtype));
  }
  // Sizes: numbers and bound symbols must match; a new symbol is bound here.
  std::map<std::string, int64_t> fresh;
  for (size_t i = 0; i < shape.size(); ++i) {
    const Extent &e = shape[i];
    const int64_t size = t->shape[i];
    if (e.symbol.empty()) {
      if (size != e.value)
        return fail(arg + " has shape " + shapeText(t) + "; its dimension " + std::to_string(i) + " must be " +
                    std::to_string(e.value) + " (the contract is " + contractText(shape) + ")");
      continue;
    }
    auto it = symbols_.find(e.symbol);
    int64_t expected = it != symbols_.end() ? it->second.value : fresh.count(e.symbol) ? fresh[e.symbol] : -1;
    if (expected < 0) {
      fresh[e.symbol] = size;
      continue;
    }
    if (size != expected) {
      const std::string from = it != symbols_.end() ? it->second.from : arg;
      return fail(arg + " has shape " + shapeText(t) + "; the contract is " + contractText(shape) + " with " +
                  e.symbol + " = " + std::to_string(expected) + " (" + from + ")");
    }
  }
  for (size_t i = 0; i < shape.size(); ++i)
    if (!shape[i].symbol.empty() && fresh.count(shape[i].symbol) && !symbols_.count(shape[i].symbol))
      symbols_[shape[i].symbol] = {fresh[shape[i].symbol], arg + " dimension " + std::to_string(i)};
  // Layout.
  const int n = t->ndim;
  for (int i = 0; i < n; ++i)
    if (t->strides[i] < 0)
      return fail(arg + " has a negative stride in dimension " + std::to_string(i));
  if (layout == Layout::Contiguous && !isContiguous(t))
    return fail(arg + " must be contiguous (row-major) " + shapeText(t));
  // An empty tensor addresses nothing: any strides (NumPy gives (0, 0) to a (0, 64) array).
  if (layout == Layout::UnitInnerStride && n > 0 && numElements(t) > 0 && t->shape[n - 1] > 1 && t->strides[n - 1] != 1)
    return fail(arg + " needs a unit innermost stride, got " + std::to_string(t->strides[n - 1]));
  return true;
}

} // namespace tk::kernels
