//===- engram_hash_reference.cpp - the C++ reference ----------------------===//
#include "kernels/engram/engram_hash.h"

#include <cstdint>

namespace tk::kernels::engram {

using namespace tk::dsl;

void engramHashReference(const int32_t *ids, const int64_t *multipliers, const int32_t *vocab, const int32_t *offsets,
                         int64_t tokens, int64_t ngram, int64_t layers, int64_t tables, int32_t *out) {
  const int64_t cols = (ngram - 1) * tables;
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t t = 0; t < tokens; ++t) {
      uint64_t h = 0; // unsigned: the products wrap as two's complement
      for (int64_t i = 0; i < ngram; ++i) {
        h ^= (uint64_t)(int64_t)ids[t * ngram + i] * (uint64_t)multipliers[l * ngram + i];
        if (i == 0)
          continue;
        for (int64_t j = 0; j < tables; ++j) {
          const int64_t c = (i - 1) * tables + j, m = vocab[l * cols + c];
          int32_t &o = out[(l * tokens + t) * cols + c];
          if (m <= 0) {
            o = -1;
            continue;
          }
          int64_t r = (int64_t)h % m;
          r += r < 0 ? m : 0; // floor semantics
          o = (int32_t)(uint32_t)((uint64_t)r + (uint64_t)(int64_t)offsets[l * cols + c]);
        }
      }
    }
}

} // namespace tk::kernels::engram
