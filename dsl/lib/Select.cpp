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

std::vector<Tile> topkColumns(const Tile &keys, int64_t k, int64_t valid) {
  const std::vector<int64_t> shape = keys.shape();
  if (shape.size() != 2 || keys.dtype() != DType::I32)
    throw std::invalid_argument("topkColumns: needs a (rows, n) i32 key tile");
  const int64_t n = shape[1];
  if (k < 1 || valid < k || valid > n)
    throw std::invalid_argument("topkColumns: k = " + std::to_string(k) + " of " + std::to_string(valid) +
                                " valid columns in a tile of " + std::to_string(n));
  KernelBuilder &kb = *keys.builder();
  Tile column = kb.iota(shape, 1, DType::I32);
  Tile live = map({keys, column}, DType::I32, [valid](const std::vector<Scalar> &s) {
    return select(s[1] < s[1].constantI32(valid), s[0], s[0].constantI32(kTaken));
  });
  std::vector<Tile> chosen;
  for (int64_t round = 0; round < k; ++round) {
    Tile best = expand(reduce_max(live, 1), 1, n);
    Tile holders = map({live, best, column}, DType::I32, [](const std::vector<Scalar> &s) {
      return select(s[0] == s[1], s[2], s[2].constantI32(kNoColumn));
    });
    Tile winner = reduce_min(holders, 1); // the lowest column holding the best key
    chosen.push_back(winner);
    if (round + 1 == k)
      break;
    Tile winnerRow = expand(winner, 1, n);
    live = map({live, column, winnerRow}, DType::I32, [](const std::vector<Scalar> &s) {
      return select(s[1] == s[2], s[0].constantI32(kTaken), s[0]);
    });
  }
  return chosen;
}

} // namespace tk::dsl
