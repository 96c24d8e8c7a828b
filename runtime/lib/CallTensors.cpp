//===- CallTensors.cpp - outputs that overlap another tensor of the call --===//
#include "tk/runtime/CallTensors.h"
#include "tk/dsl/DType.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <vector>

namespace tk::runtime {

namespace {

thread_local CallTensors *current = nullptr;

/// dsl::DType numbers its values as tk_dtype does; 0 for a value outside it.
int64_t bytesOf(tk_dtype t) { return (uint32_t)t <= (uint32_t)TK_I16 ? dsl::byteSize(static_cast<dsl::DType>(t)) : 0; }

struct Range {
  const char *name;
  bool output;
  uintptr_t begin, end;
  /// Bytes of the contiguous block its trailing dimensions make (one element
  /// when the last stride is not 1), and the gcd of the other dimensions'
  /// strides in bytes (0: none): every byte of the tensor is begin + a
  /// multiple of `outer` + less than `inner`.
  uint64_t inner, outer;
};

/// [begin, end) from the first element to past the last, or false for an
/// empty tensor and a descriptor the entry point refuses.
bool byteRange(const tk_tensor *t, Range &r) {
  if (!t || !t->data || t->ndim < 0 || t->ndim > TK_MAX_DIMS || bytesOf(t->dtype) == 0)
    return false;
  const int64_t elt = bytesOf(t->dtype);
  __int128 last = 0, dense = 1;
  bool inBlock = true;
  r.inner = elt, r.outer = 0;
  for (int d = t->ndim - 1; d >= 0; --d) {
    if (t->shape[d] <= 0 || t->strides[d] < 0)
      return false;
    last += (__int128)(t->shape[d] - 1) * t->strides[d];
    if (t->shape[d] > 1) {
      inBlock &= t->strides[d] == dense;
      if (inBlock)
        r.inner = (uint64_t)(dense * t->shape[d] * elt);
      else
        r.outer = std::gcd(r.outer, (uint64_t)t->strides[d] * (uint64_t)elt);
    }
    dense *= t->shape[d];
  }
  const __int128 bytes = (last + 1) * elt;
  const auto base = reinterpret_cast<uintptr_t>(t->data);
  if (bytes > (__int128)(UINTPTR_MAX - base))
    return false;
  r.begin = base, r.end = base + (uintptr_t)bytes;
  return true;
}

/// True when no byte of `a` is a byte of `b`, shown from their residues: each
/// tensor's bytes lie at [begin, begin + inner) modulo the gcd of the outer
/// strides of both. False when that cannot show it (they may still be apart).
bool provablyApart(const Range &a, const Range &b) {
  const uint64_t period = std::gcd(a.outer, b.outer);
  if (period == 0 || a.inner + b.inner > period)
    return false;
  const uint64_t ra = a.begin % period, rb = b.begin % period;
  // [ra, ra + a.inner) and [rb, rb + b.inner) on a circle of length `period`.
  const uint64_t gap = (rb + period - ra) % period; // from a's start to b's
  return gap >= a.inner && period - gap >= b.inner;
}

/// True when no two elements of `t` share a byte: its dimensions of size > 1,
/// by increasing stride, each step past everything the smaller ones span.
/// (A descriptor byteRange refuses never reaches here.)
bool elementsApart(const tk_tensor *t) {
  std::vector<std::pair<int64_t, int64_t>> dims; // (stride, size)
  for (int d = 0; d < t->ndim; ++d)
    if (t->shape[d] > 1)
      dims.push_back({t->strides[d], t->shape[d]});
  std::sort(dims.begin(), dims.end());
  __int128 span = 1; // elements the smaller dimensions reach, plus one
  for (const auto &[stride, size] : dims) {
    if (stride < span)
      return false;
    span = (__int128)stride * (size - 1) + span;
  }
  return true;
}

} // namespace

Status outputsOverlapNothing(const char *entry, const std::vector<NamedTensor> &inputs,
                             const std::vector<NamedTensor> &outputs, const char *rule) {
  std::vector<Range> ranges;
  auto add = [&](const NamedTensor &n, bool output) {
    Range r{n.name, output, 0, 0, 0, 0};
    const bool valid = byteRange(n.tensor, r);
    if (valid)
      ranges.push_back(r);
    return valid;
  };
  for (const NamedTensor &n : outputs) {
    if (add(n, true) && !elementsApart(n.tensor)) {
      std::ostringstream m;
      m << entry << ": output " << n.name << " has elements that share memory (strides";
      for (int d = 0; d < n.tensor->ndim; ++d)
        m << (d ? ", " : " ") << n.tensor->strides[d];
      m << " for sizes";
      for (int d = 0; d < n.tensor->ndim; ++d)
        m << (d ? ", " : " ") << n.tensor->shape[d];
      m << "); each element of an output must have bytes of its own";
      return Status::invalid(m.str());
    }
  }
  for (const NamedTensor &n : inputs)
    add(n, false);
  for (size_t i = 0; i < ranges.size(); ++i)
    for (size_t j = i + 1; j < ranges.size(); ++j) {
      // Outputs come first: a pair with an output has it in `a`. Ranges that
      // meet share a byte unless their strides show they interleave (columns
      // of one buffer): a pair the residues cannot show apart is refused.
      const Range &a = ranges[i], &b = ranges[j];
      const bool meet = a.begin < b.end && b.begin < a.end;
      if (!a.output || !meet || provablyApart(a, b))
        continue;
      std::ostringstream m;
      m << entry << ": output " << a.name << " (bytes 0x" << std::hex << a.begin << "-0x" << a.end << ") overlaps "
        << (b.output ? "output " : "input ") << b.name << " (bytes 0x" << b.begin << "-0x" << b.end << "); " << rule;
      return Status::invalid(m.str());
    }
  return Status::ok();
}

CallTensors::CallTensors(const char *entry, std::initializer_list<NamedTensor> inputs,
                         std::initializer_list<NamedTensor> outputs)
    : entry_(entry), inputs_(inputs), outputs_(outputs), outer_(current) {
  current = this;
}

CallTensors::~CallTensors() { current = outer_; }

void CallTensors::declare(const std::vector<NamedTensor> &inputs, const std::vector<NamedTensor> &outputs) {
  if (!current)
    return;
  current->inputs_.insert(current->inputs_.end(), inputs.begin(), inputs.end());
  current->outputs_.insert(current->outputs_.end(), outputs.begin(), outputs.end());
  current->checked_ = false; // declared after a kernel ran: the next one checks them all again
}

Status CallTensors::checkBeforeFirstKernel() {
  if (!current || current->checked_)
    return Status::ok();
  current->checked_ = true;
  Status s = outputsOverlapNothing(current->entry_, current->inputs_, current->outputs_);
  current->launched_ |= s.isOk();
  return s;
}

Status CallTensors::checkIfNothingLaunched() {
  if (!current || current->launched_)
    return Status::ok();
  return outputsOverlapNothing(current->entry_, current->inputs_, current->outputs_);
}

} // namespace tk::runtime
