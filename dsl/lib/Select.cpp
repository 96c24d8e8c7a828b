//===- Select.cpp ---------------------------------------------------------===//
#include "tk/dsl/Select.h"
#include "tk/dsl/KernelBuilder.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace tk::dsl {

namespace {
constexpr int64_t kTaken = std::numeric_limits<int32_t>::min();
constexpr int64_t kNaNKey = kTaken + 1;
constexpr int64_t kNoColumn = std::numeric_limits<int32_t>::max();
constexpr int64_t kTakenPacked = std::numeric_limits<int64_t>::min();
constexpr int64_t kLowMask = 0xFFFFFFFFll;
} // namespace

Tile rankKeys(const Tile &values) {
  return map({values}, DType::I32, [](const std::vector<Scalar> &s) {
    Scalar v = s[0].toF32(), zero = v.constantF32(0.0);
    Scalar bits = select(v == zero, zero, v).bitsAsI32(); // -0 takes +0's key
    // Negative floats order backwards as integers: flip all but the sign bit.
    Scalar key = select(bits < v.constantI32(0), bits ^ v.constantI32(0x7FFFFFFF), bits);
    return select(v != v, v.constantI32(kNaNKey), key);
  });
}

Tile keyValues(const Tile &keys) {
  return map({keys}, DType::F32, [](const std::vector<Scalar> &s) {
    Scalar k = s[0];
    return select(k < k.constantI32(0), k ^ k.constantI32(0x7FFFFFFF), k).bitsAsF32();
  });
}

Scalar packRankKey(const Scalar &key, const Scalar &position) {
  Scalar low = key.constantI64(kLowMask) - position.sextToI64();
  return (key.sextToI64() << 32) | low;
}

Scalar packedKey(const Scalar &packed) { return (packed >> 32).truncToI32(); }

Scalar packedPosition(const Scalar &packed) {
  return (packed.constantI64(kLowMask) - (packed & packed.constantI64(kLowMask))).truncToI32();
}

Scalar knockOut(const Scalar &packed, const Scalar &winner) {
  return select(packed == winner, packed.constantI64(kTakenPacked), packed);
}

std::vector<Tile> topkColumns(const Tile &keys, int64_t k, int64_t valid, int64_t dim, TopkRounds rounds) {
  const std::vector<int64_t> shape = keys.shape();
  if (dim < 0)
    dim += (int64_t)shape.size();
  if (dim < 0 || dim >= (int64_t)shape.size() || keys.dtype() != DType::I32)
    throw std::invalid_argument("topkColumns: needs an i32 key tile and one of its dimensions");
  const int64_t n = shape[dim];
  if (k < 1 || valid < k || valid > n)
    throw std::invalid_argument("topkColumns: k = " + std::to_string(k) + " of " + std::to_string(valid) +
                                " valid positions in a dimension of " + std::to_string(n));
  KernelBuilder &kb = *keys.builder();
  Tile position = kb.iota(shape, dim, DType::I32);
  std::vector<Tile> chosen;
  if (rounds == TopkRounds::Packed) {
    // One i64 per position that orders as the rank, ties included: the key in
    // the high half, 0xFFFFFFFF - position (unsigned) in the low half. These
    // are unique, so a round is one max-reduce and the winner is knocked out
    // by its packed key.
    Tile live = map({keys, position}, DType::I64, [valid](const std::vector<Scalar> &s) {
      return select(s[1] < s[1].constantI32(valid), packRankKey(s[0], s[1]), s[0].constantI64(kTakenPacked));
    });
    for (int64_t round = 0; round < k; ++round) {
      Tile best = reduce_max(live, dim);
      chosen.push_back(map({best}, DType::I32, [](const std::vector<Scalar> &s) { return packedPosition(s[0]); }));
      if (round + 1 == k)
        break;
      live = map({live, expand(best, dim, n)}, DType::I64,
                 [](const std::vector<Scalar> &s) { return knockOut(s[0], s[1]); });
    }
    return chosen;
  }
  Tile live = map({keys, position}, DType::I32, [valid](const std::vector<Scalar> &s) {
    return select(s[1] < s[1].constantI32(valid), s[0], s[0].constantI32(kTaken));
  });
  for (int64_t round = 0; round < k; ++round) {
    Tile best = expand(reduce_max(live, dim), dim, n);
    Tile holders = map({live, best, position}, DType::I32, [](const std::vector<Scalar> &s) {
      return select(s[0] == s[1], s[2], s[2].constantI32(kNoColumn));
    });
    Tile winner = reduce_min(holders, dim); // the lowest position holding the best key
    chosen.push_back(winner);
    if (round + 1 == k)
      break;
    Tile winnerEverywhere = expand(winner, dim, n);
    live = map({live, position, winnerEverywhere}, DType::I32, [](const std::vector<Scalar> &s) {
      return select(s[1] == s[2], s[0].constantI32(kTaken), s[0]);
    });
  }
  return chosen;
}

} // namespace tk::dsl
