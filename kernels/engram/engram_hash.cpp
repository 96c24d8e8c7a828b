//===- engram_hash.cpp ----------------------------------------------------===//
#include "kernels/engram/engram_hash.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <stdexcept>

namespace tk::kernels::engram {

using namespace tk::dsl;

BuiltKernel buildEngramHash(mlir::MLIRContext &ctx, const EngramHashConfig &c) {
  if (c.ngram < 2 || c.layers < 1 || c.tables < 1)
    throw std::invalid_argument("engram_hash: needs N >= 2, Lh >= 1, E >= 1");
  const int64_t rows = c.rowsPerBlock(), n = c.ngram, cols = c.columns(), width = c.width();
  KernelBuilder k(ctx, "engram_hash", c.numThreads());
  Dim tokens = k.dynamic("tokens");
  Tensor ids = k.input("ngram_token_ids", {tokens, n}, DType::I32);
  Tensor mult = k.input("multipliers", {c.layers * n}, DType::I64);
  Tensor vocab = k.input("vocab_sizes", {c.layers * cols}, DType::I32);
  Tensor offsets = k.input("offsets", {c.layers * cols}, DType::I32);
  std::vector<Tensor> out;
  for (int64_t l = 0; l < c.layers; ++l)
    out.push_back(k.output("out" + std::to_string(l), {tokens, cols}, DType::I32));
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * rows;
    std::vector<Tile> id;
    for (int64_t i = 0; i < n; ++i)
      id.push_back(k.load(ids, {row, k.index(i)}, {rows, 1}));
    auto constant = [](const Tile &like, int64_t v) {
      return map({like}, DType::I32, [v](const std::vector<Scalar> &s) { return s[0].constantI32(v); });
    };
    Tile col = k.iota({rows, width}, 1);
    for (int64_t l = 0; l < c.layers; ++l) {
      // h_i as (rows, 1) tiles: each product wraps in 64 bits, then the XOR chain.
      std::vector<Tile> h;
      for (int64_t i = 0; i < n; ++i) {
        std::vector<Tile> in = {id[i], k.gather(mult, constant(id[i], l * n + i))};
        if (i > 0)
          in.push_back(h.back());
        h.push_back(map(in, DType::I64, [](const std::vector<Scalar> &v) {
          Scalar p = v[0].sextToI64() * v[1];
          return v.size() > 2 ? v[2] ^ p : p;
        }));
      }
      // Column c of the layer's row is table c % E of order c / E + 1.
      auto layerIndex = [&](const Tile &column) {
        return map({column}, DType::I32, [&](const std::vector<Scalar> &v) {
          return select(v[0] < v[0].constantI32(cols), v[0] + v[0].constantI32(l * cols), v[0].constantI32(-1));
        });
      };
      std::vector<Tile> in = {col, k.gather(vocab, layerIndex(col)), k.gather(offsets, layerIndex(col))};
      for (int64_t i = 1; i < n; ++i)
        in.push_back(expand(h[i], 1, width));
      Tile rowOut = map(in, DType::I32, [&](const std::vector<Scalar> &v) {
        Scalar hash = v[3];
        for (int64_t i = 2; i < n; ++i)
          hash = select(v[0] >= v[0].constantI32((i - 1) * c.tables), v[2 + i], hash);
        Scalar modulus = v[1].sextToI64(), positive = modulus > modulus.constantI64(0);
        Scalar r = floormod(hash, select(positive, modulus, modulus.constantI64(1)));
        return select(positive, (r + v[2].sextToI64()).truncToI32(), v[0].constantI32(-1));
      });
      k.storePadded(out[l], {row, k.index(0)}, rowOut); // width: the columns rounded up to a power of two
    }
  });
  return k.finish();
}

} // namespace tk::kernels::engram
