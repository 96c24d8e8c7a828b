//===- fuzz_input.h - decoding a fuzzer's bytes into C API arguments ------===//
//
// The harnesses read their input as a stream of choices. Sizes come from a
// small vocabulary built around two problem sizes (M rows, K columns), so
// that random bytes often describe tensors that agree with each other and
// reach the kernels, and sometimes describe the hostile cases (negative,
// huge, mismatched, misaligned, null) that validation must refuse.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/tk.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tk::fuzz {

/// Reads choices from the fuzzer's bytes; past the end every read is 0.
class Input {
public:
  Input(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t u32();
  float f32();
  /// One of n choices (n > 0).
  size_t choose(size_t n) { return byte() % n; }
  template <typename T, size_t N> T pick(const T (&options)[N]) { return options[choose(N)]; }

private:
  const uint8_t *data_;
  size_t size_, pos_ = 0;
};

/// A host buffer with inaccessible pages right after its bytes and a
/// canary pattern before them: a kernel that reads or writes past the
/// tensor's last byte faults, one that writes before its first byte is
/// found by intact().
class GuardedBuffer {
public:
  GuardedBuffer(size_t bytes, size_t misalign, Input &in, bool powersOfTwo = false);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer &) = delete;
  GuardedBuffer &operator=(const GuardedBuffer &) = delete;
  uint8_t *data() const { return data_; }
  size_t bytes() const { return bytes_; }
  /// The canary bytes before the data are as written.
  bool intact() const;
  /// A digest of the bytes (to tell whether a failed call wrote them).
  uint64_t digest() const;

private:
  uint8_t *map_ = nullptr, *data_ = nullptr;
  size_t mapBytes_ = 0, bytes_ = 0, slack_ = 0;
};

/// The problem sizes a call is built around, and the sizes its tensors'
/// dimensions are drawn from.
struct Sizes {
  int64_t m = 0, k = 0; ///< the first choice of each: 128 x 256
  std::vector<int64_t> vocabulary;
  static Sizes draw(Input &in);
  int64_t dim(Input &in) const;
};

/// What an argument should be: a contiguous host tensor of this dtype and
/// shape (the entry point's contract for the drawn sizes).
struct Hint {
  tk_dtype dtype;
  std::vector<int64_t> shape;
  /// What the elements hold: random bits, or (f32) powers of two within 8
  /// binades, as scale factors some operators require.
  enum class Fill { Random, PowersOfTwo } fill = Fill::Random;
};

/// Tensors made for one call; owns their buffers.
class Tensors {
public:
  /// The hinted tensor (most often: an input of zero bytes draws it), or
  /// one mutated from it: null, another dtype, rank or size, other strides,
  /// misaligned, on another device, or made of arbitrary choices. Buffers
  /// are host memory sized to what the tensor claims, or absent when that
  /// is too large.
  const tk_tensor *draw(Input &in, const Sizes &sizes, const Hint &hint);
  /// Null when the next byte is even, else draw(): an optional argument.
  const tk_tensor *optional(Input &in, const Sizes &sizes, const Hint &hint);
  /// For tests: the `index`-th tensor drawn (counting from 0) is made
  /// invalid in the way `what` says, after its other choices.
  enum class Corruption { None, Dtype, Shape, Misalign, Device };
  void corrupt(int index, Corruption what) { corruptIndex_ = index, corruption_ = what; }
  /// For tests: the `index`-th tensor lies `offset` bytes into the buffer of
  /// the earlier `onto`-th one (when its bytes fit there; else it is drawn as
  /// usual); that buffer has at least `room` bytes. Placed without reading
  /// the input for its contents, so later choices read other bytes: meant for
  /// inputs of zeros.
  void overlay(int index, int onto, size_t room = 0, size_t offset = 0) {
    overlayIndex_ = index, overlayOnto_ = onto, overlayRoom_ = room, overlayOffset_ = offset;
  }
  /// Marks a drawn tensor as one the call writes (Call::out).
  void markOutput(const tk_tensor *t);
  /// What is known of each drawn tensor, by drawing order.
  struct Placed {
    const tk_tensor *tensor = nullptr; ///< null: drawn as null
    uintptr_t begin = 0, end = 0;      ///< the bytes its elements span in host memory (none: equal)
    int buffer = -1;                   ///< the buffer they lie in (-1: none)
    bool contiguous = false;           ///< row-major: its elements are every byte of [begin, end)
    bool output = false;
  };
  const std::vector<Placed> &placed() const { return placed_; }
  /// A description of an output and another tensor, both row-major, that
  /// share a byte, or "" when none do.
  std::string outputSharingBytes() const;
  /// How many tensors were drawn (optional ones left null not counted).
  int drawn() const { return drawn_; }
  /// Every buffer's canaries are intact.
  bool intact() const;
  /// Digests of every buffer, in order.
  std::vector<uint64_t> digests() const;

private:
  int drawn_ = 0, corruptIndex_ = -1, overlayIndex_ = -1, overlayOnto_ = -1;
  size_t overlayRoom_ = 0, overlayOffset_ = 0;
  bool overlaid_ = false; // a random overlay placed (one a call: most calls still reach a kernel)
  std::vector<Placed> placed_;
  Corruption corruption_ = Corruption::None;
  std::vector<std::unique_ptr<tk_tensor>> tensors_;
  std::vector<std::unique_ptr<GuardedBuffer>> buffers_;
};

} // namespace tk::fuzz
