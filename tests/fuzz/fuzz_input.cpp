//===- fuzz_input.cpp -----------------------------------------------------===//
#include "fuzz_input.h"

#include "kernels/common/validate.h"

#include <algorithm>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace tk::fuzz {

uint32_t Input::u32() {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= uint32_t(byte()) << (8 * i);
  return v;
}

float Input::f32() {
  static const float common[] = {0.5f, 10.0f, 1.0f, 0.0f, -1.0f, 1e-4f, 1e-45f, 448.0f, 3.0f};
  if (choose(4))
    return pick(common);
  uint32_t bits = u32(); // any bit pattern: NaNs, infinities, subnormals
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

static size_t pageSize() { return (size_t)sysconf(_SC_PAGESIZE); }
constexpr uint8_t kCanary = 0xA5;

GuardedBuffer::GuardedBuffer(size_t bytes, size_t misalign, Input &in, bool powersOfTwo) : bytes_(bytes) {
  const size_t page = pageSize();
  // Data ends where the guard pages begin; before it, `slack_` canary bytes
  // fill the rest of the first accessible page (at least 64).
  const size_t used = bytes + misalign;
  const size_t dataPages = (used + 64 + page - 1) / page;
  mapBytes_ = (dataPages + 2) * page;
  void *m = mmap(nullptr, mapBytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    mapBytes_ = 0;
    return;
  }
  map_ = static_cast<uint8_t *>(m);
  mprotect(map_ + (dataPages + 1) * page, page, PROT_NONE); // after the data
  mprotect(map_, page, PROT_NONE);                          // and before the canaries
  // The end of the data is aligned down to 16 bytes below the guard, the
  // start moved by `misalign` bytes from its natural alignment.
  uint8_t *end = map_ + (dataPages + 1) * page;
  data_ = end - ((bytes + 15) / 16) * 16 - 16 + misalign;
  slack_ = (size_t)(data_ - (map_ + page));
  std::memset(map_ + page, kCanary, slack_);
  std::memset(data_ + bytes, kCanary, (size_t)(end - (data_ + bytes)));
  uint64_t s = in.u32() | 1ull << 40;
  for (size_t i = 0; i < bytes; i += 8) { // xorshift: random element bits (NaNs and infinities among them)
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    std::memcpy(data_ + i, &s, std::min<size_t>(8, bytes - i));
  }
  if (powersOfTwo) // 2^-7 .. 2^0 in every aligned f32 word
    for (size_t i = (size_t)((4 - (uintptr_t)data_ % 4) % 4); i + 4 <= bytes; i += 4) {
      const uint32_t w = uint32_t(120 + data_[i] % 8) << 23;
      std::memcpy(data_ + i, &w, 4);
    }
}

GuardedBuffer::~GuardedBuffer() {
  if (map_)
    munmap(map_, mapBytes_);
}

bool GuardedBuffer::intact() const {
  if (!map_)
    return true;
  const uint8_t *end = map_ + mapBytes_ - pageSize();
  for (const uint8_t *p = map_ + pageSize(); p < data_; ++p)
    if (*p != kCanary)
      return false;
  for (const uint8_t *p = data_ + bytes_; p < end; ++p)
    if (*p != kCanary)
      return false;
  return true;
}

uint64_t GuardedBuffer::digest() const {
  uint64_t h = 1469598103934665603ull;
  size_t i = 0;
  for (uint64_t w; i + 8 <= bytes_; i += 8) { // a word at a time: buffers reach megabytes
    std::memcpy(&w, data_ + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  for (; i < bytes_; ++i)
    h = (h ^ data_[i]) * 1099511628211ull;
  return h;
}

Sizes Sizes::draw(Input &in) {
  static const int64_t rows[] = {128, 64, 256, 16, 130, 37, 1, 0, 3, 2};
  static const int64_t cols[] = {256, 2048, 512, 128, 1024, 576, 64, 192, 32, 0, 1, 136, 16};
  Sizes s;
  s.m = in.pick(rows);
  s.k = in.pick(cols);
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  s.vocabulary = {s.m, s.k, s.k / 2, s.k / 2 * 3, 2 * s.k, ceilDiv(s.m, 128), ceilDiv(s.m, 32), ceilDiv(s.k, 128),
                  ceilDiv(s.k, 32), (s.m + 3) / 4 * 4, 3, 8, 1, 0};
  return s;
}

int64_t Sizes::dim(Input &in) const {
  switch (in.choose(16)) {
  case 0: return -1;
  case 1: return int64_t(1) << (30 + in.choose(34)); // up to 2^63
  case 2: return in.u32() & 0xFFFF;
  default: return vocabulary[in.choose(vocabulary.size())];
  }
}

const tk_tensor *Tensors::optional(Input &in, const Sizes &sizes, const Hint &hint) {
  return in.byte() % 2 ? draw(in, sizes, hint) : nullptr;
}

static void rowMajor(tk_tensor &t) {
  int64_t s = 1;
  for (int d = std::min(t.ndim, TK_MAX_DIMS) - 1; d >= 0; --d) {
    t.strides[d] = s;
    if (__builtin_mul_overflow(s, std::max<int64_t>(1, t.shape[d]), &s))
      s = INT64_MAX / 2;
  }
}

const tk_tensor *Tensors::draw(Input &in, const Sizes &sizes, const Hint &hint) {
  auto t = std::make_unique<tk_tensor>();
  std::memset(t.get(), 0, sizeof(tk_tensor));
  t->dtype = hint.dtype;
  t->ndim = (int32_t)hint.shape.size();
  for (int d = 0; d < t->ndim; ++d)
    t->shape[d] = hint.shape[d];
  t->device = TK_DEVICE_CPU;
  const int index = drawn_++;
  placed_.emplace_back();
  const bool corrupted = index == corruptIndex_;
  const uint8_t choice = in.byte();
  const int mutations = choice % 4 == 3 ? 1 + in.choose(3) : 0;
  // The byte's other bits: whether this tensor lies inside an earlier tensor's buffer (below), and whose. (No byte
  // of its own, so that inputs kept before keep their meaning.)
  const bool inside = (choice >> 2) % 8 == 7;
  const size_t insideWhose = choice >> 5;
  size_t misalign = 0;
  for (int i = 0; i < mutations; ++i) {
    switch (in.choose(10)) {
    case 0: return nullptr;
    case 1: {
      static const tk_dtype dtypes[] = {TK_BF16, TK_F32, TK_F8_E4M3, TK_I8,  TK_U8,
                                        TK_I32,  TK_I64, TK_I16,     TK_F16, (tk_dtype)77};
      t->dtype = in.pick(dtypes);
      break;
    }
    case 2: {
      static const int32_t ranks[] = {1, 2, 3, 0, 9, -1};
      t->ndim = in.pick(ranks);
      for (int d = 0; d < std::clamp(t->ndim, 0, TK_MAX_DIMS); ++d)
        t->shape[d] = sizes.dim(in);
      break;
    }
    case 3:
    case 4: // a dimension the descriptor holds (ndim may claim 9 of TK_MAX_DIMS = 8)
      if (t->ndim > 0)
        t->shape[in.choose(std::min(t->ndim, TK_MAX_DIMS))] = sizes.dim(in);
      break;
    case 5: misalign = 1; break;
    case 6: t->device = in.choose(2) ? TK_DEVICE_CUDA : (tk_device_type)5; break;
    default: break; // strides, below
    }
  }
  if (corrupted) {
    if (corruption_ == Corruption::Dtype)
      t->dtype = (tk_dtype)77;
    else if (corruption_ == Corruption::Shape && t->ndim > 0)
      t->shape[std::min(t->ndim, TK_MAX_DIMS) - 1] += 3;
    else if (corruption_ == Corruption::Misalign)
      misalign = 1;
    else if (corruption_ == Corruption::Device)
      t->device = TK_DEVICE_CUDA; // its pointer stays host memory: tk must not touch it

  }
  const int n = std::clamp(t->ndim, 0, TK_MAX_DIMS);
  rowMajor(*t);
  bool restrided = false;
  if (mutations && in.choose(4) == 0) {
    restrided = true;
    switch (in.choose(3)) {
    case 0: // column-major (strides saturate at 2^40: a product of fuzzed dims overflowed int64)
      for (int64_t d = 0, s = 1; d < n; ++d) {
        t->strides[d] = s;
        s = (int64_t)std::min<__int128>((__int128)s * std::max<int64_t>(1, t->shape[d]), (__int128)1 << 40);
      }
      break;
    case 1: // padded rows
      if (n >= 2)
        t->strides[n - 2] += in.choose(2) ? 16 : 1;
      break;
    default:
      for (int d = 0; d < n; ++d) {
        static const int64_t strides[] = {0, 1, -1, 2, 3, 64, 4096, int64_t(1) << 40};
        t->strides[d] = in.pick(strides);
      }
    }
  }
  // The span of elements the descriptor claims, with overflow checks.
  const int64_t elt = kernels::elementBytes(t->dtype); // 0 for an unknown dtype: no buffer
  __int128 lo = 0, hi = 0;
  bool empty = false;
  for (int d = 0; d < n; ++d) {
    if (t->shape[d] <= 0) {
      empty = true;
      continue;
    }
    // Each reach clamped to 2^80 elements (far past the 8 MB a buffer may have), so that five of them summed,
    // times the element size, stay inside __int128.
    const __int128 cap = (__int128)1 << 80;
    const __int128 reach = std::clamp<__int128>((__int128)(t->shape[d] - 1) * t->strides[d], -cap, cap);
    (reach < 0 ? lo : hi) += reach;
  }
  const __int128 bytes = (hi - lo + 1) * elt;
  if (t->device == TK_DEVICE_CPU && !empty && bytes > 0 && bytes <= (8 << 20) && t->ndim >= 0 &&
      t->ndim <= TK_MAX_DIMS) {
    if (elt == 1)
      misalign = 0;
    // Now and then (once a call) a tensor lies inside an earlier tensor's buffer: an entry point must refuse an
    // output that shares memory with another of its tensors (the fuzzer's oracle checks that; the oracle of
    // unchanged bytes after a failure still holds). A test places one on purpose (overlay()).
    int host = -1;
    size_t offset = 0;
    if (index == overlayIndex_ && overlayOnto_ >= 0 && overlayOnto_ < index)
      host = placed_[overlayOnto_].buffer, offset = overlayOffset_;
    else if (overlayIndex_ < 0 && inside && !overlaid_ && !buffers_.empty())
      host = (int)(insideWhose % buffers_.size());
    if (host >= 0 && buffers_[host]->data() && buffers_[host]->bytes() >= offset + (size_t)bytes) {
      if (index != overlayIndex_) {
        // Flush with the host's end where that keeps its 16-byte alignment (this tensor keeps the guard page
        // after its last byte), else at its start.
        const size_t room = buffers_[host]->bytes() - (size_t)bytes;
        offset = room % 16 == 0 ? room : 0;
        overlaid_ = true;
      }
    } else {
      host = -1;
      const size_t room = index == overlayOnto_ ? std::max((size_t)bytes, overlayRoom_) : (size_t)bytes;
      buffers_.push_back(
          std::make_unique<GuardedBuffer>(room, misalign, in, hint.fill == Hint::Fill::PowersOfTwo && !mutations));
      if (buffers_.back()->data())
        host = (int)buffers_.size() - 1;
    }
    if (host >= 0) {
      uint8_t *first = buffers_[host]->data() + offset;
      t->data = first - (int64_t)lo * elt;
      placed_[index].begin = (uintptr_t)first;
      placed_[index].end = (uintptr_t)first + (size_t)bytes;
      placed_[index].buffer = host;
      placed_[index].contiguous = !restrided;
    }
  } else if ((empty || t->device != TK_DEVICE_CPU) && in.choose(4) == 0) {
    // A pointer to nothing, for a tensor whose elements tk must not touch
    // (empty, or in a place it must refuse). Tensors that claim elements in
    // host memory but were not allocated (too large) stay NULL.
    t->data = reinterpret_cast<void *>(uintptr_t(0x10));
  }
  placed_[index].tensor = t.get();
  tensors_.push_back(std::move(t));
  return tensors_.back().get();
}

void Tensors::markOutput(const tk_tensor *t) {
  for (Placed &p : placed_)
    if (p.tensor && p.tensor == t)
      p.output = true;
}

std::string Tensors::outputSharingBytes() const {
  for (size_t i = 0; i < placed_.size(); ++i)
    for (size_t j = 0; j < placed_.size(); ++j) {
      const Placed &o = placed_[i], &x = placed_[j];
      if (i != j && o.output && o.contiguous && x.contiguous && o.begin < o.end && x.begin < x.end && o.begin < x.end &&
          x.begin < o.end)
        return "output " + std::to_string(i) + " and tensor " + std::to_string(j) + " (in drawing order)";
    }
  return "";
}

bool Tensors::intact() const {
  return std::all_of(buffers_.begin(), buffers_.end(), [](const auto &b) { return b->intact(); });
}

std::vector<uint64_t> Tensors::digests() const {
  std::vector<uint64_t> d;
  for (const auto &b : buffers_)
    d.push_back(b->digest());
  return d;
}

} // namespace tk::fuzz
