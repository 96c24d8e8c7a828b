//===- unique_group_indices_reference.cpp - the C++ reference -------------===//
#include "kernels/moe/unique_group_indices.h"

#include <cstdint>

namespace tk::kernels::moe {

using namespace tk::dsl;

void uniqueGroupIndicesReference(int64_t *ids, int64_t rows, int64_t k) {
  for (int64_t r = 0; r < rows; ++r) {
    int64_t *row = ids + r * k;
    for (int64_t s = 1; s < k; ++s) {
      if (row[s] < 0)
        continue;
      for (int64_t j = 0; j < s; ++j)
        if (row[j] == row[s]) { // an earlier repeat, now -1, matches nothing; its first occurrence still does
          row[s] = -1;
          break;
        }
    }
  }
}

} // namespace tk::kernels::moe
