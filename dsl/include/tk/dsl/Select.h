//===- Select.h - arg-max and top-k over a tile's last dimension ----------===//
//
// The selection blocks of the MoE gates (moe.md §6.1, §6.2) as helpers over
// tile ops (map, reduce, expand, iota): every GPU and CPU pattern they need
// exists already, and the order they implement is one total order:
//
//   a ranks before b  iff  key(a) > key(b), or key(a) == key(b) and a's
//   column is lower.
//
// For f32 values rankKeys() gives that key: the greater value first, +0 and
// -0 equal (their key is the same), NaN below every number (-inf included).
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/dsl/Values.h"

#include <cstdint>
#include <vector>

namespace tk::dsl {

/// i32 keys of a float tile, compared as signed integers in the order above.
/// Every key is above INT32_MIN (which marks a column already chosen).
Tile rankKeys(const Tile &values);

/// The f32 value of each rank key (the inverse of rankKeys, with -0 as +0
/// and NaN as a NaN).
Tile keyValues(const Tile &keys);

/// How topkColumns finds each round's winner.
enum class TopkRounds {
  /// A max-reduce of the i32 keys, then a min-reduce of the positions
  /// holding the best: i32 shuffles, the cheaper form within one warp.
  KeyThenPosition,
  /// One max-reduce of i64s that pack each key with its position: one
  /// exchange through shared memory a round where the dimension spans warps,
  /// where the other form needs two (top2_sum_gate, its group ranking's
  /// top-2 sums packed too: 0.96-1.01x the time on an H100; topk_gate, within
  /// a warp: 0.96-1.23x, 1.08x over its six rows, so it keeps the other).
  Packed,
};

/// The i64 that orders as (key, then the lower position): the i32 key in
/// the high half, 0xFFFFFFFF - position in the low half. Unique per position,
/// so one max-reduce finds the best key and the first position holding it.
Scalar packRankKey(const Scalar &key, const Scalar &position);
/// The key and the position of a packed rank key.
Scalar packedKey(const Scalar &packed);
Scalar packedPosition(const Scalar &packed);
/// `packed`, or below every packed key where it equals `winner` (a round's
/// best): the winner knocked out of the next round.
Scalar knockOut(const Scalar &packed, const Scalar &winner);

/// The k best positions along dimension `dim` (default: the last) of an i32
/// key tile, best first, ties to the lower position: k tiles of the keys'
/// shape with 1 along `dim`, of i32 positions. Positions at or beyond
/// `valid` (the padding of a tile wider than the data) are never chosen;
/// k <= valid; keys above INT32_MIN (rankKeys' are), which KeyThenPosition
/// uses to mark a chosen position. K rounds, each finding the winner
/// (`rounds`) and knocking it out. (Along a dimension other than one the
/// keys were reduced along, e.g. the groups of a (rows, groups, 1) tile
/// reduced along its last dimension.)
std::vector<Tile> topkColumns(const Tile &keys, int64_t k, int64_t valid, int64_t dim = -1,
                              TopkRounds rounds = TopkRounds::KeyThenPosition);

} // namespace tk::dsl
