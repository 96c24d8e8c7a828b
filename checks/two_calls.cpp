//===- two_calls.cpp ------------------------------------------------------===//
#include "checks/two_calls.h"
#include "checks/bf16.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tk::checks {

int64_t CheckedOutput::elements() const {
  int64_t e = 1;
  for (int64_t d : shape)
    e *= d;
  return e;
}

int64_t CheckedOutput::bytes() const { return std::max<int64_t>(1, elements()) * (dtype == TK_BF16 ? 2 : 4); }

Near within(double atol, double rtol) {
  return
      [atol, rtol](int64_t, double want, double got) { return std::fabs(got - want) <= atol + rtol * std::fabs(want); };
}

TwoCalls::TwoCalls(Placement &p, std::vector<CheckedOutput> outputs) : p_(p), outs_(std::move(outputs)) {
  for (int k = 0; k < 2; ++k)
    for (const CheckedOutput &o : outs_) {
      // Each call its own host buffer: the CPU path's placement hands out the host buffer itself.
      std::vector<uint8_t> &h = host_[k].emplace_back(o.bytes());
      void *placed = nullptr;
      if (o.initial) {
        std::memcpy(h.data(), o.initial, h.size());
        placed = p_.put(h.data(), h.size());
      } else {
        placed = p_.poisoned(h.data(), h.size(), 0xEE);
      }
      tensors_[k].push_back(p_.tensor(placed, o.dtype, o.shape));
    }
}

bool TwoCalls::run(CheckResult &r, const Call &call) {
  for (int k = 0; k < 2; ++k) {
    if (!r.called(call(tensors_[k])))
      return false;
    for (size_t o = 0; o < outs_.size(); ++o)
      p_.get(host_[k][o].data(), tensors_[k][o].data, host_[k][o].size());
  }
  for (size_t o = 0; o < outs_.size(); ++o) {
    const CheckedOutput &out = outs_[o];
    const int64_t count = out.elements();
    const uint8_t *got = host_[0][o].data();
    r.countMismatches += count > 0 && std::memcmp(got, host_[1][o].data(), out.bytes()) != 0;
    for (int64_t i = 0; i < count; ++i) {
      double v;
      if (out.dtype == TK_BF16) {
        uint16_t b;
        std::memcpy(&b, got + 2 * i, 2);
        v = bf16Value(b);
      } else {
        float f;
        std::memcpy(&f, got + 4 * i, 4);
        v = f;
      }
      r.outMismatches += !out.near(i, out.want[i], v);
    }
  }
  return true;
}

} // namespace tk::checks
