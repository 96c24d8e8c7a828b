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

/// The k best columns of each row of a (rows, n) i32 key tile, best first,
/// ties to the lower column: k tiles of (rows, 1) i32 column indices.
/// Columns at or beyond `valid` (the padding of a tile wider than the data)
/// are never chosen; k <= valid. K rounds of a max-reduce of the keys and a
/// min-reduce of the columns holding it, the winner knocked out by column.
std::vector<Tile> topkColumns(const Tile &keys, int64_t k, int64_t valid);

} // namespace tk::dsl
