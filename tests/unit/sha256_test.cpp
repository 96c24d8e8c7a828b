// The runtime's SHA-256 (the disk cache's keys and digests): FIPS 180-4's
// vectors, and LLVM's implementation (which the keys came from before) on
// every length across the one- and two-block padding boundaries.
#include "tk/runtime/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

std::string llvmSha256(const std::string &s) {
  std::array<uint8_t, 32> d = llvm::SHA256::hash(llvm::arrayRefFromStringRef(s));
  return llvm::toHex(d, /*LowerCase=*/true);
}

TEST(Sha256, FipsVectors) {
  using tk::runtime::sha256Hex;
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, SameAsLlvmAtEveryLengthTo300) {
  std::string s;
  for (int n = 0; n <= 300; ++n) {
    EXPECT_EQ(tk::runtime::sha256Hex(s), llvmSha256(s)) << "length " << n;
    s.push_back(char(n * 131 + 7)); // every byte value, including zeros and high bits
  }
}

} // namespace
