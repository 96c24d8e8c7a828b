//===- baselines.cpp - the peers' H200 measurements beside tk's rows ------===//
#include "bench/baselines.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace tk::bench {

Baselines loadBaselines(const std::string &path) {
  Baselines b;
  std::vector<std::string> candidates;
  if (!path.empty()) {
    candidates.push_back(path);
  } else {
    if (const char *env = std::getenv("TK_BASELINES"))
      candidates.push_back(env);
    candidates.push_back("../shared/baselines/torch-h200.json");
    candidates.push_back("shared/baselines/torch-h200.json");
    candidates.push_back("bench/baselines/torch-h200.json"); // the copy in this repository
  }
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  for (const std::string &c : candidates) {
    auto read = llvm::MemoryBuffer::getFile(c);
    if (read) {
      b.path = c, buffer = std::move(*read);
      break;
    }
  }
  if (!buffer) {
    b.error = "no baseline file found (looked for";
    for (const std::string &c : candidates)
      b.error += " " + c;
    b.error += "; --baselines FILE or TK_BASELINES names one)";
    return b;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(buffer->getBuffer());
  if (!parsed) {
    b.error = b.path + ": " + llvm::toString(parsed.takeError());
    return b;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *rows = root ? root->getArray("rows") : nullptr;
  if (!rows) {
    b.error = b.path + ": no \"rows\" array";
    return b;
  }
  // A string member, or "" when it is missing or not a string.
  auto text = [](const llvm::json::Object &o, llvm::StringRef key) {
    std::optional<llvm::StringRef> s = o.getString(key);
    return s ? s->str() : std::string();
  };
  b.device = text(*root, "device");
  b.torch = text(*root, "torch");
  if (auto c = root->getNumber("copy_gbps"))
    b.copyGbps = *c;
  for (const llvm::json::Value &v : *rows) {
    const llvm::json::Object *o = v.getAsObject();
    if (!o)
      continue;
    BaselineRow r;
    r.op = text(*o, "op");
    r.impl = text(*o, "impl");
    r.us = o->getNumber("us").value_or(0);
    r.gbps = o->getNumber("gbps").value_or(0);
    if (!r.op.empty())
      b.rows.push_back(r);
  }
  return b;
}

BaselineMatch matchBaseline(const std::string &op) {
  // The baselines' shapes and math (torch_peers.py beside the JSON) against
  // tk's benchmark rows; the SwiGLU baseline has row-major, unrounded scale
  // factors, tk's row column-major and power-of-two ones (same bytes).
  if (op == "per_token_cast 32768x7168")
    return {"per_token_cast", "32768x7168", "g=128 bf16", ""};
  if (op == "swiglu_fwd+cast 65536x2x2048")
    return {"swiglu_forward_and_per_token_cast", "65536rowsxH2048", "g=128 bf16 col round weights", ""};
  if (op == "transpose 8x4096x7168 bf16")
    return {"batched_transpose", "8x4096x7168", "bf16", ""};
  // The MoE baselines are not the spec's benchmarks: tk's own rows (docs/performance.md, peers in the same run) are.
  if (op.rfind("reduce_fused", 0) == 0)
    return {"", "", "", "tk's reduce_fused rows are moe.md's routed shapes, not this one: docs/performance.md"};
  if (op.rfind("topk_gate", 0) == 0)
    return {"", "", "", "a group-limited gate: tk's topk_sum_and_topk_group_idx + topk_gate, docs/performance.md"};
  return {"", "", "", "no tk row stands for it"};
}

std::string formatBaselines(const Baselines &b, const std::vector<MeasuredRow> &measured, double copyGbps) {
  char line[512];
  if (!b.error.empty())
    return "\nPeer baselines: " + b.error + "\n";
  std::string out = "\nPeer baselines (" + b.path + ": " + b.device + ", torch " + b.torch +
                    "; measured by the peers, not in this run; the live peer table is docs/performance.md)\n";
  std::snprintf(line, sizeof line, "%-30s %10s %14s %14s %9s %9s  %s\n", "baseline", "tk us", "eager us",
                "compile us", "vs eager", "vs comp.", "tk row");
  out += line;
  std::snprintf(line, sizeof line, "%-30s %10s %14s %14s  (copy ceiling, GB/s: tk %.0f, baseline %.0f)\n",
                "copy 2GiB", "-", "-", "-", copyGbps, b.copyGbps);
  out += line;
  std::map<std::string, std::map<std::string, double>> byOp; // op -> impl -> us
  std::vector<std::string> order;
  for (const BaselineRow &r : b.rows) {
    if (r.op.rfind("copy", 0) == 0)
      continue;
    if (!byOp.count(r.op))
      order.push_back(r.op);
    byOp[r.op][r.impl] = r.us;
  }
  for (const std::string &op : order) {
    BaselineMatch m = matchBaseline(op);
    double tkUs = 0;
    for (const MeasuredRow &r : measured)
      if (!m.op.empty() && r.op == m.op && r.shape == m.shape && r.variant == m.variant)
        tkUs = r.us;
    const double eager = byOp[op].count("eager") ? byOp[op]["eager"] : 0;
    const double compile = byOp[op].count("compile") ? byOp[op]["compile"] : 0;
    auto us = [](double v) {
      char r[32];
      std::snprintf(r, sizeof r, "%.1f", v);
      return v > 0 ? std::string(r) : std::string("-");
    };
    auto ratio = [&](double peer) {
      if (tkUs <= 0 || peer <= 0)
        return std::string("-");
      char r[32];
      std::snprintf(r, sizeof r, "%.2fx", peer / tkUs);
      return std::string(r);
    };
    std::string where = m.op.empty() ? m.why
                        : tkUs > 0   ? m.op + " " + m.shape + " " + m.variant
                                     : m.op + " " + m.shape + " " + m.variant + " (not run: see --only)";
    std::snprintf(line, sizeof line, "%-30s %10s %14s %14s %9s %9s  %s\n", op.c_str(), us(tkUs).c_str(),
                  us(eager).c_str(), us(compile).c_str(), ratio(eager).c_str(), ratio(compile).c_str(),
                  where.c_str());
    out += line;
  }
  return out;
}

} // namespace tk::bench
