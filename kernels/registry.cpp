//===- registry.cpp - the registered operators and schedules --------------===//
#include "kernels/registry.h"
#include "kernels/common/operator_schedule.h"

#include <mutex>

namespace tk::kernels {

namespace registration {
void registerAll(); // generated from kernels/CMakeLists.txt's *_api.cpp sources
}

namespace {

struct Registry {
  std::vector<ShippedKernel> kernels;
  std::vector<const ScheduledOperator *> schedules;
};

Registry *filling = nullptr;

/// Built once, on first use, by calling every file's registration.
const Registry &registry() {
  static const Registry r = [] {
    Registry built;
    filling = &built;
    registration::registerAll();
    filling = nullptr;
    return built;
  }();
  return r;
}

Registry &beingFilled() {
  if (!filling)
    throw std::logic_error("registerOperator/registerSchedule outside a TK_REGISTER_OPERATORS body");
  return *filling;
}

} // namespace

void registerOperator(ShippedKernel kernel) {
  Registry &r = beingFilled();
  for (const ShippedKernel &k : r.kernels)
    if (k.name == kernel.name)
      throw std::logic_error("operator " + kernel.name + " registered twice");
  r.kernels.push_back(std::move(kernel));
}

void registerSchedule(const ScheduledOperator &schedule) { beingFilled().schedules.push_back(&schedule); }

const std::vector<ShippedKernel> &shippedKernels() { return registry().kernels; }

const std::vector<const ScheduledOperator *> &scheduledOperators() { return registry().schedules; }

} // namespace tk::kernels
