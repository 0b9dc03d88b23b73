#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "assay/core/error.hpp"
#include "assay/core/npy.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

namespace fs = std::filesystem;

/// The bytes of a .npy file as numpy writes it: header padded with spaces to a multiple of 64.
std::string npy_bytes(const std::string& dict, const std::string& data, int major = 1) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t n = header.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) out += std::string(2, '\0');
  return out + header + data;
}

template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return out;
}

std::string dict(const std::string& descr, bool fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

TEST(Npy, ReadsEachDtype) {
  const auto f8 = parse_npy(
      npy_bytes(dict("<f8", false, "(2, 3)"), raw<double>({1, 2, 3, 4, 5, 6.5})), "x.npy");
  EXPECT_EQ(f8.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(f8.data, (std::vector<double>{1, 2, 3, 4, 5, 6.5}));
  EXPECT_EQ(f8.dtype, "<f8");
  EXPECT_EQ(parse_npy(npy_bytes(dict("<f4", false, "(2,)"), raw<float>({0.1f, -2})), "x.npy").data,
            (std::vector<double>{static_cast<double>(0.1f), -2}));
  EXPECT_EQ(
      parse_npy(npy_bytes(dict("<i8", false, "(2,)"), raw<std::int64_t>({-5, 1LL << 40})), "x.npy")
          .data,
      (std::vector<double>{-5, 1099511627776.0}));
  EXPECT_EQ(
      parse_npy(npy_bytes(dict("<i4", false, "(3,)"), raw<std::int32_t>({-1, 0, 7})), "x.npy").data,
      (std::vector<double>{-1, 0, 7}));
  EXPECT_EQ(
      parse_npy(npy_bytes(dict("|u1", false, "(2,)"), raw<std::uint8_t>({255, 3})), "x.npy").data,
      (std::vector<double>{255, 3}));
  EXPECT_EQ(
      parse_npy(npy_bytes(dict("|b1", false, "(3,)"), raw<std::uint8_t>({1, 0, 1})), "x.npy").data,
      (std::vector<double>{1, 0, 1}));
  // A bool byte other than 0/1 reads as True, as numpy reads it (found by fuzz_npy: loading it as
  // a C++ bool was undefined behaviour).
  EXPECT_EQ(
      parse_npy(npy_bytes(dict("|b1", false, "(3,)"), raw<std::uint8_t>({255, 0, 2})), "x.npy")
          .data,
      (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(parse_npy(npy_bytes(dict("<f2", false, "(4,)"),
                                raw<std::uint16_t>({0x3c00, 0xc000, 0x0001, 0x7c00})),
                      "x.npy")
                .data,
            (std::vector<double>{1, -2, std::ldexp(1.0, -24), INFINITY}));
}

TEST(Npy, ShapesAndVersions) {
  const auto scalar = parse_npy(npy_bytes(dict("<f8", false, "()"), raw<double>({3.5})), "x.npy");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.data, (std::vector<double>{3.5}));
  const auto empty = parse_npy(npy_bytes(dict("<f8", false, "(0, 4)"), ""), "x.npy");
  EXPECT_EQ(empty.shape, (std::vector<std::int64_t>{0, 4}));
  EXPECT_TRUE(empty.data.empty());
  // Version 2.0 and keys in another order, double-quoted.
  const auto v2 =
      parse_npy(npy_bytes("{\"shape\": (1,), \"fortran_order\": False, \"descr\": \"<f8\"}",
                          raw<double>({9}), 2),
                "x.npy");
  EXPECT_EQ(v2.data, (std::vector<double>{9}));
}

TEST(Npy, FortranOrderIsTransposed) {
  // numpy: np.asfortranarray(np.arange(6.).reshape(2, 3)) stores 0 3 1 4 2 5.
  const auto m =
      parse_npy(npy_bytes(dict("<f8", true, "(2, 3)"), raw<double>({0, 3, 1, 4, 2, 5})), "x.npy");
  EXPECT_EQ(m.data, (std::vector<double>{0, 1, 2, 3, 4, 5}));
  // Shape (2, 3, 2): C element (i, j, k) = 6i + 2j + k, stored at F offset i + 2j + 6k.
  std::vector<double> f(12);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) f[i + 2 * j + 6 * k] = 6 * i + 2 * j + k;
  std::string data(reinterpret_cast<const char*>(f.data()), f.size() * sizeof(double));
  const auto t = parse_npy(npy_bytes(dict("<f8", true, "(2, 3, 2)"), data), "x.npy");
  for (int i = 0; i < 12; ++i) EXPECT_EQ(t.data[i], i);
}

TEST(NpyErrors, BadFiles) {
  EXPECT_THROW_MSG(parse_npy("", "x.npy"), Error,
                   "x.npy: expected the magic string \"\\x93NUMPY\", found an empty file");
  EXPECT_THROW_MSG(parse_npy("a,b\n1,2\n", "x.npy"), Error,
                   "x.npy: expected the magic string \"\\x93NUMPY\", found \"a,b\\x0a1,\"");
  EXPECT_THROW_MSG(parse_npy("\x93NUMPY", "x.npy"), Error,
                   "x.npy: truncated header (the file ends after 6 bytes)");
  EXPECT_THROW_MSG(parse_npy(std::string("\x93NUMPY\x04\x00\x10\x00", 10), "x.npy"), Error,
                   "x.npy: unsupported format version 4.0 (expected 1.0, 2.0 or 3.0)");
  EXPECT_THROW_MSG(parse_npy(std::string("\x93NUMPY\x01\x00\x76\x00{'descr'", 17), "x.npy"), Error,
                   "x.npy: truncated header (expected 118 bytes, found 7)");
  const std::string ok = npy_bytes(dict("<f8", false, "(2, 2)"), raw<double>({1, 2, 3, 4}));
  EXPECT_THROW_MSG(parse_npy(ok.substr(0, ok.size() - 8), "x.npy"), Error,
                   "x.npy: truncated data (expected 32 bytes for shape (2, 2) of <f8, found 24)");
  EXPECT_THROW_MSG(parse_npy(ok + "xy", "x.npy"), Error,
                   "x.npy: 2 unexpected bytes after the data (shape (2, 2) of <f8 needs 32)");
  EXPECT_THROW_MSG(parse_npy(npy_bytes(dict("<f8", false, "(3,)"), raw<double>({1})), "x.npy"),
                   Error,
                   "x.npy: truncated data (expected 24 bytes for shape (3,) of <f8, found 8)");
}

TEST(NpyErrors, Dtypes) {
  const std::string expected =
      "; expected a real number, integer or bool type: f8, f4, f2, i8, i4, i2, i1, u8, u4, u2, u1, "
      "b1 in either byte order";
  EXPECT_THROW_MSG(
      parse_npy(npy_bytes(dict("<c16", false, "(1,)"), std::string(16, '\0')), "x.npy"), Error,
      "x.npy: unsupported dtype \"<c16\" (complex numbers; save the real and imaginary parts as "
      "separate arrays)" +
          expected);
  EXPECT_THROW_MSG(
      parse_npy(npy_bytes(dict("|O", false, "(1,)"), std::string(8, '\0')), "x.npy"), Error,
      "x.npy: unsupported dtype \"|O\" (Python objects, stored as a pickle: assay never "
      "unpickles, as loading a pickle can run code; save a numeric array, e.g. np.save(path, "
      "a.astype(float)))" +
          expected);
  EXPECT_THROW_MSG(parse_npy(npy_bytes(dict("<U3", false, "(1,)"), std::string(12, '\0')), "x.npy"),
                   Error,
                   "x.npy: unsupported dtype \"<U3\" (strings; assay reads numbers)" + expected);
  EXPECT_THROW_MSG(
      parse_npy(npy_bytes(dict("<f16", false, "(1,)"), std::string(16, '\0')), "x.npy"), Error,
      "x.npy: unsupported dtype \"<f16\" (extended precision floats; save them as float64)" +
          expected);
  EXPECT_THROW_MSG(parse_npy(npy_bytes(dict("<x9", false, "(1,)"), ""), "x.npy"), Error,
                   "x.npy: unsupported dtype \"<x9\"" + expected);
  EXPECT_THROW_MSG(
      parse_npy(npy_bytes("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }",
                          std::string(8, '\0')),
                "x.npy"),
      Error, "x.npy: unsupported dtype: structured arrays (descr is a list) are not supported");
}

TEST(NpyErrors, MalformedHeaders) {
  auto message = [](const std::string& header) {
    try {
      parse_npy(npy_bytes(header, raw<double>({1})), "x.npy");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message("'descr': '<f8'}"),
            "x.npy: malformed header: expected '{', found \"'descr': '<f8'}\"");
  EXPECT_EQ(message("{'descr': '<f8', 'shape': (1,)}"),
            "x.npy: malformed header: no 'fortran_order' key");
  EXPECT_EQ(message("{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}"),
            "x.npy: malformed header: expected True or False, found \"0, 'shape': (1,)}\"");
  EXPECT_EQ(
      message("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}"),
      "x.npy: malformed header: expected a dimension (a non-negative integer), found \"-1,)}\"");
  EXPECT_EQ(message("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}"),
            "x.npy: malformed header: unexpected key 'x' (expected descr, fortran_order, shape)");
  EXPECT_EQ(message("{'descr': '<f8' 'fortran_order': False}"),
            "x.npy: malformed header: expected ',' or '}', found \"'fortran_order': Fal...\"");
}

// Issue 38: files numpy wrote on other machines and in other eras.

/// `values` as big-endian bytes.
template <typename T>
std::string big_endian(std::initializer_list<T> values) {
  std::string out = raw<T>(values);
  for (std::size_t i = 0; i < out.size(); i += sizeof(T)) {
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(i),
                 out.begin() + static_cast<std::ptrdiff_t>(i + sizeof(T)));
  }
  return out;
}

TEST(Npy, BigEndianDataAreByteSwapped) {
  EXPECT_EQ(
      parse_npy(npy_bytes(dict(">f8", false, "(2,)"), big_endian<double>({1.5, -1e300})), "x.npy")
          .data,
      (std::vector<double>{1.5, -1e300}));
  EXPECT_EQ(
      parse_npy(npy_bytes(dict(">i2", true, "(2, 2)"), big_endian<std::int16_t>({1, 2, 3, -4})),
                "x.npy")
          .data,
      (std::vector<double>{1, 3, 2, -4}));  // Fortran order: columns first
  EXPECT_EQ(
      parse_npy(npy_bytes(dict(">u8", false, "(1,)"), big_endian<std::uint64_t>({1ULL << 60})),
                "x.npy")
          .data,
      (std::vector<double>{1152921504606846976.0}));
  // 0x3C00 is 1.0 in half precision.
  EXPECT_EQ(
      parse_npy(npy_bytes(dict(">f2", false, "(1,)"), std::string("\x3C\x00", 2)), "x.npy").data,
      (std::vector<double>{1.0}));
  EXPECT_EQ(parse_npy(npy_bytes(dict(">i1", false, "(1,)"), std::string("\xFF", 1)), "x.npy").data,
            (std::vector<double>{-1}));
}

TEST(Npy, OneLetterCodesAndNoByteOrder) {
  EXPECT_EQ(parse_npy(npy_bytes(dict("d", false, "(2,)"), raw<double>({1, 2})), "x.npy").data,
            (std::vector<double>{1, 2}));
  EXPECT_EQ(parse_npy(npy_bytes(dict("<f", false, "(1,)"), raw<float>({0.5f})), "x.npy").data,
            (std::vector<double>{0.5}));
  EXPECT_EQ(parse_npy(npy_bytes(dict("f8", false, "(1,)"), raw<double>({3})), "x.npy").data,
            (std::vector<double>{3}));
  EXPECT_EQ(
      parse_npy(npy_bytes(dict("?", false, "(2,)"), std::string("\x01\x00", 2)), "x.npy").data,
      (std::vector<double>{1, 0}));
  EXPECT_EQ(
      parse_npy(npy_bytes(dict(">l", false, "(1,)"), big_endian<std::int64_t>({-7})), "x.npy").data,
      (std::vector<double>{-7}));
}

TEST(Npy, HeadersOfOtherEras) {
  const std::string data = raw<double>({1, 2, 3});
  for (const std::string header : {
           "{'descr': '<f8', 'fortran_order': False, 'shape': (3L,), }",
           "{u'descr': u'<f8', u'fortran_order': False, u'shape': (3,), }",
           "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (3,)}",
           "{'shape': (3,), 'fortran_order': False, 'descr': '<f8'}",
           "{'descr':'<f8','fortran_order':False,'shape':(3,)}",
       }) {
    EXPECT_EQ(parse_npy(npy_bytes(header, data), "x.npy").data, (std::vector<double>{1, 2, 3}))
        << header;
    EXPECT_EQ(parse_npy(npy_bytes(header, data, 2), "x.npy").data, (std::vector<double>{1, 2, 3}))
        << header;
  }
  // numpy < 1.9 padded to 16 bytes: the padding is not part of the format.
  std::string old("\x93NUMPY\x01\x00", 8);
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }";
  while ((10 + header.size() + 1) % 16 != 0) header += ' ';
  header += '\n';
  old += static_cast<char>(header.size());
  old += '\0';
  EXPECT_EQ(parse_npy(old + header + data, "x.npy").data, (std::vector<double>{1, 2, 3}));
  EXPECT_THROW_MSG(
      parse_npy(npy_bytes("{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}",
                          data),
                "x.npy"),
      Error, "x.npy: malformed header: the key 'descr' appears twice");
}

TEST(NpyErrors, ZipArchivesAndHugeHeaders) {
  EXPECT_THROW_MSG(
      parse_npy(std::string("PK\x03\x04\x14\x00", 6), "a.npz"), Error,
      "a.npz: expected a .npy file, found a zip archive (an .npz file of several "
      "arrays, as np.savez writes): load it with numpy and save one array with np.save");
  EXPECT_THROW_MSG(parse_npy(std::string("\x93NUMPY\x02\x00\x00\x00\x00\x10", 12), "x.npy"), Error,
                   "x.npy: expected a header of at most 1048576 bytes, found a header length of "
                   "268435456");
}

TEST(NpyErrors, DevZeroIsRefusedAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW_MSG(read_npy("/dev/zero"), Error,
                   "/dev/zero: expected the magic string \"\\x93NUMPY\", found "
                   "\"\\x00\\x00\\x00\\x00\\x00\\x00\"");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(Npy, ReadsAStreamAsFarAsTheHeaderSays) {
  const std::string dir =
      (fs::temp_directory_path() / ("assay_npy_" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);
  const std::string fifo = dir + "/a.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string bytes = npy_bytes(dict("<i4", false, "(2,)"), raw<std::int32_t>({4, 5}));
  for (const std::string extra : {"", "trailing"}) {
    std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << bytes << extra; });
    if (extra.empty()) {
      EXPECT_EQ(read_npy(fifo).data, (std::vector<double>{4, 5}));
    } else {
      EXPECT_THROW_MSG(read_npy(fifo), Error,
                       fifo +
                           ": unexpected bytes after the data (shape (2,) of <i4 needs 8; the "
                           "stream goes on)");
    }
    writer.join();
  }
  fs::remove_all(dir);
}

TEST(NpyErrors, MissingFile) {
  const std::string path = (fs::temp_directory_path() / "assay_no_such_file.npy").string();
  EXPECT_THROW_MSG(read_npy(path), Error, path + ": cannot open: No such file or directory");
  const std::string written = (fs::temp_directory_path() / "assay_test_npy.npy").string();
  std::ofstream(written, std::ios::binary)
      << npy_bytes(dict("<i4", false, "(2,)"), raw<std::int32_t>({4, 5}));
  EXPECT_EQ(read_npy(written).data, (std::vector<double>{4, 5}));
  fs::remove(written);
}

}  // namespace
}  // namespace assay
