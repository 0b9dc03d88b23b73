// SHA-256 against FIPS 180-4's test vectors and against coreutils' sha256sum on a file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "assay/core/error.hpp"
#include "assay/core/sha256.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

TEST(Sha256, FipsVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalEqualsOneShotAtEveryBlockBoundary) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>('a' + i % 26);
  for (std::size_t cut = 0; cut <= 130; ++cut) {
    Sha256 h;
    h.update(std::string_view(text).substr(0, cut));
    h.update(std::string_view(text).substr(cut));
    EXPECT_EQ(h.digest_hex(), sha256_hex(text)) << cut;
  }
}

TEST(Sha256, FileEqualsSha256sum) {
  const auto path = std::filesystem::temp_directory_path() / "assay_sha256_test.bin";
  {
    std::ofstream out(path, std::ios::binary);
    for (long i = 0; i < 3000000; ++i) out.put(static_cast<char>((i * 7919) % 251));
  }
  FILE* pipe = ::popen(("sha256sum '" + path.string() + "'").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[65] = {};
  ASSERT_EQ(std::fread(buffer, 1, 64, pipe), 64u);
  ::pclose(pipe);
  EXPECT_EQ(sha256_file(path.string()), std::string(buffer, 64));
  std::filesystem::remove(path);
}

TEST(Sha256, MissingFileSaysSo) {
  EXPECT_THROW_MSG(sha256_file("/nonexistent/x.csv"), Error,
                   "/nonexistent/x.csv: cannot read: No such file or directory");
}

}  // namespace
}  // namespace assay
