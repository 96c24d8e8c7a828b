//===- mask_indices_by_tp.cpp ---------------------------------------------===//
#include "kernels/moe/mask_indices_by_tp.h"

namespace tk::kernels::moe {

using namespace tk::dsl;

std::string MaskIndicesConfig::key() const {
  const std::string schedule = maskIndicesSchedule().spec().print(*this);
  return std::string("mask_indices_by_tp:dtype=") + (dtype == DType::I32 ? "i32" : "i64") +
         (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const MaskIndicesConfig &c) {
  if (c.tileElements() < c.numThreads())
    return "a tile of " + std::to_string(c.tileElements()) + " ids leaves some of " + std::to_string(c.numThreads()) +
           " threads without one";
  if (c.tileElements() / c.numThreads() > 64)
    return std::to_string(c.tileElements() / c.numThreads()) + " ids per thread, over 64";
  return "";
}

static std::vector<std::string> searchSpace(const MaskIndicesConfig &, const compiler::Target &) {
  return everyCombination({{"tile", {512, 1024, 2048, 4096}}, {"threads", {128, 256}}});
}

const OperatorSchedule<MaskIndicesConfig> &maskIndicesSchedule() {
  using C = MaskIndicesConfig;
  static const OperatorSchedule<C> schedule(
      "mask_indices_by_tp", "tk_mask_indices_by_tp",
      ScheduleSpec<C>({
          {&C::tile, {"tile", "ids per CTA", 128, 16384, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

BuiltKernel buildMaskIndices(mlir::MLIRContext &ctx, const MaskIndicesConfig &c) {
  if (c.dtype != DType::I32 && c.dtype != DType::I64)
    throw std::invalid_argument("mask_indices_by_tp: ids are i32 or i64");
  const int64_t tile = c.tileElements();
  KernelBuilder k(ctx, "mask_indices_by_tp", c.numThreads());
  Dim n = k.dynamic("n");
  Tensor ids = k.input("ids", {n}, c.dtype);
  Tensor out = k.output("masked", {n}, c.dtype);
  Uniform perRank = k.scalarInput("per_rank", c.dtype), tpRanks = k.scalarInput("tp_ranks", c.dtype),
          tpRank = k.scalarInput("tp_rank", c.dtype);
  k.grid({ceil_div(n, tile)}, [&](const std::vector<Index> &b) {
    Index origin = b[0] * tile;
    Tile v = k.load(ids, {origin}, {tile});
    k.store(out, {origin}, map({v}, c.dtype, [&](const std::vector<Scalar> &s) {
              const Scalar &id = s[0];
              Scalar r = id.uniform(perRank), tp = id.uniform(tpRanks), rank = id.uniform(tpRank);
              Scalar zero = c.dtype == DType::I32 ? id.constantI32(0) : id.constantI64(0);
              Scalar none = c.dtype == DType::I32 ? id.constantI32(-1) : id.constantI64(-1);
              // Negative ids are masked first, so truncating division is floor division here.
              Scalar epRank = divs(id, r);
              Scalar local = divs(epRank, tp) * r + rems(id, r);
              Scalar foreign = (id < zero) | (rems(epRank, tp) != rank);
              return select(foreign | (local < zero), none, local);
            }));
  });
  return k.finish();
}

int64_t maskIndexReference(int64_t v, int64_t perRank, int64_t tpRanks, int64_t tpRank) {
  if (v < 0 || (v / perRank) % tpRanks != tpRank)
    return -1;
  const int64_t local = (v / perRank) / tpRanks * perRank + v % perRank;
  return local < 0 ? -1 : local;
}

} // namespace tk::kernels::moe
