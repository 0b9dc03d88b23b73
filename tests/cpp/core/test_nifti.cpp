// NIfTI round trips and bad files (the comparisons with nibabel are in
// tests/python/test_nifti.py).
#include "assay/core/nifti.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <span>
#include <vector>

#include "assay/core/error.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

namespace fs = std::filesystem;

class NiftiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("assay_nifti_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

Volume sample_volume() {
  Volume v;
  v.shape = {5, 4, 3};
  v.data.resize(60);
  for (std::size_t i = 0; i < 60; ++i) v.data[i] = static_cast<double>(i % 7) - 2;
  v.affine = {1.5, 0, 0, -10, 0, 2, 0, 20, 0, 0, 2.5, 30, 0, 0, 0, 1};
  return v;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST_F(NiftiTest, RoundTripsEveryTypeCompressedAndNot) {
  const Volume v = sample_volume();
  for (const char* suffix : {".nii", ".nii.gz"}) {
    for (NiftiType type :
         {NiftiType::int16, NiftiType::int32, NiftiType::float32, NiftiType::float64}) {
      const std::string file = path(std::string("v_") + std::string(to_string(type)) + suffix);
      write_nifti(file, v, type);
      const Volume back = read_nifti(file);
      EXPECT_EQ(back.shape, v.shape);
      EXPECT_EQ(back.data, v.data) << file;
      EXPECT_EQ(back.path, file);
      for (int i = 0; i < 16; ++i) EXPECT_NEAR(back.affine[i], v.affine[i], 1e-6) << file;
      EXPECT_TRUE(same_grid(back, v));
    }
  }
}

TEST_F(NiftiTest, RotatedAffineSurvivesAsSformAndQform) {
  Volume v = sample_volume();
  const double c = std::cos(0.3), s = std::sin(0.3);
  v.affine = {c, -s, 0, 1, s, c, 0, 2, 0, 0, -1, 3, 0, 0, 0, 1};
  write_nifti(path("r.nii"), v, NiftiType::float32);
  const Volume back = read_nifti(path("r.nii"));
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(back.affine[i], v.affine[i], 1e-6);
}

TEST_F(NiftiTest, IntegerTypesRejectValuesTheyCannotHold) {
  Volume v = sample_volume();
  EXPECT_THROW_MSG(write_nifti(path("u.nii"), v, NiftiType::uint8), Error,
                   path("u.nii") +
                       ": voxel (0, 0, 0) = -2 cannot be stored as uint8: expected an integer in "
                       "[0, 255]");
  v.data[7] = 0.5;
  EXPECT_THROW_MSG(write_nifti(path("i.nii.gz"), v, NiftiType::int16), Error,
                   path("i.nii.gz") +
                       ": voxel (2, 1, 0) = 0.5 cannot be stored as int16: expected an integer in "
                       "[-32768, 32767]");
  EXPECT_FALSE(fs::exists(path("i.nii.gz")));
  EXPECT_THROW_MSG(write_nifti(path("x.img"), v, NiftiType::float32), Error,
                   path("x.img") + ": expected a file name ending in .nii or .nii.gz");
}

TEST_F(NiftiTest, MissingAndEmptyFilesAreErrorsNamingThem) {
  EXPECT_THROW_MSG(read_nifti(path("none.nii.gz")), Error,
                   path("none.nii.gz") + ": cannot open: No such file or directory");
  write_bytes(path("empty.nii"), "");
  EXPECT_THROW_MSG(read_nifti(path("empty.nii")), Error,
                   path("empty.nii") + ": empty file, expected a NIfTI header");
  EXPECT_THROW_MSG(read_nifti(path("a.csv")), Error,
                   path("a.csv") + ": expected a file name ending in .nii or .nii.gz");
}

// Issue 38: a .hdr/.img pair (FSL's NIFTI_PAIR, Analyze 7.5) is named, with how to convert it.
TEST_F(NiftiTest, PairsAreRefusedWithHowToConvert) {
  for (const std::string name : {"v.hdr", "v.img", "v.hdr.gz", "v.img.gz"}) {
    write_bytes(path(name), std::string(348, '\0'));
    const bool gz = name.ends_with(".gz");
    const std::string header = path(gz ? "v.hdr.gz" : "v.hdr");
    EXPECT_THROW_MSG(read_nifti(path(name)), Error,
                     path(name) +
                         ": expected a single-file NIfTI volume (.nii or .nii.gz), found one file "
                         "of a .hdr/.img pair (as FSL writes with FSLOUTPUTTYPE=NIFTI_PAIR, or "
                         "Analyze 7.5); convert it, e.g. with fslchfiletype NIFTI_GZ " +
                         header + " or in Python nibabel.save(nibabel.load(\"" + header +
                         "\"), \"" + path("v") + ".nii.gz\")");
  }
  // A pair's header renamed to .nii is named by its magic.
  write_nifti(path("p.nii"), sample_volume(), NiftiType::float32);
  std::string bytes = read_bytes(path("p.nii"));
  bytes.replace(344, 4, std::string("ni1\0", 4));
  write_bytes(path("p.nii"), bytes);
  EXPECT_THROW_MSG(read_nifti(path("p.nii")), Error,
                   path("p.nii") +
                       ": not a single-file NIfTI-1 image: expected magic \"n+1\", found "
                       "\"ni1\\x00\" (the header of a .hdr/.img pair, renamed; assay reads "
                       ".nii/.nii.gz files)");
}

TEST_F(NiftiTest, WrongMagicAndSizeAreErrors) {
  write_nifti(path("m.nii"), sample_volume(), NiftiType::float32);
  std::string bytes = read_bytes(path("m.nii"));
  bytes[345] = 'x';
  write_bytes(path("m.nii"), bytes);
  EXPECT_THROW_MSG(read_nifti(path("m.nii")), Error,
                   path("m.nii") +
                       ": not a single-file NIfTI-1 image: expected magic \"n+1\", found "
                       "\"nx1\\x00\"");
  write_bytes(path("text.nii"), std::string(400, 'a'));
  EXPECT_THROW_MSG(read_nifti(path("text.nii")), Error,
                   path("text.nii") +
                       ": not a NIfTI file: expected sizeof_hdr 348 (NIfTI-1) or 540 (NIfTI-2), "
                       "found 1633771873");
}

TEST_F(NiftiTest, TruncatedFilesAreErrors) {
  write_nifti(path("t.nii"), sample_volume(), NiftiType::float64);
  const std::string bytes = read_bytes(path("t.nii"));
  write_bytes(path("t.nii"), bytes.substr(0, 352 + 100));
  EXPECT_THROW_MSG(read_nifti(path("t.nii")), Error,
                   path("t.nii") +
                       ": truncated: expected 480 bytes of voxel data (60 FLOAT64 voxels) from "
                       "byte 352, found 100");
  write_bytes(path("h.nii"), bytes.substr(0, 200));
  EXPECT_THROW_MSG(read_nifti(path("h.nii")), Error,
                   path("h.nii") + ": truncated: expected a 348-byte header, found 200 bytes");

  Volume big = sample_volume();
  big.shape = {40, 40, 40};
  big.data.assign(64000, 0);
  for (std::size_t i = 0; i < big.data.size(); ++i) big.data[i] = std::sin(i * 0.37);
  write_nifti(path("g.nii.gz"), big, NiftiType::float32);
  const std::string gz = read_bytes(path("g.nii.gz"));
  write_bytes(path("g.nii.gz"), gz.substr(0, gz.size() / 2));
  try {
    read_nifti(path("g.nii.gz"));
    ADD_FAILURE() << "no error for a truncated .nii.gz";
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(path("g.nii.gz") + ": truncated")) << e.what();
  }
  // Only the 8-byte gzip trailer (CRC, length) missing.
  write_bytes(path("g.nii.gz"), gz.substr(0, gz.size() - 4));
  EXPECT_THROW(read_nifti(path("g.nii.gz")), Error);
}

// A NIfTI-2 header whose dims 4..7 multiply past 2^63 (found by fuzz_nifti: signed overflow).
TEST_F(NiftiTest, HugeExtraDimensionsAreAnErrorNotAnOverflow) {
  const std::string file =
      std::string(ASSAY_SOURCE_DIR) + "/tests/data/fuzz/fuzz_nifti/nifti2-dims-overflow.nii";
  try {
    read_nifti(file);
    ADD_FAILURE() << "no error for dims 4..7 past 2^63";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_TRUE(message.starts_with(file + ": expected a 3-D volume, found a ")) << message;
    EXPECT_TRUE(message.ends_with(" with more than 2^63 volumes")) << message;
  }
}

TEST_F(NiftiTest, CorruptCompressedDataAreErrors) {
  Volume big = sample_volume();
  big.shape = {40, 40, 40};
  big.data.assign(64000, 0);
  for (std::size_t i = 0; i < big.data.size(); ++i) big.data[i] = std::sin(i * 0.37);
  write_nifti(path("c.nii.gz"), big, NiftiType::float32);
  std::string gz = read_bytes(path("c.nii.gz"));
  for (std::size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i)
    gz[i] = static_cast<char>(~gz[i]);
  write_bytes(path("c.nii.gz"), gz);
  try {
    read_nifti(path("c.nii.gz"));
    ADD_FAILURE() << "no error for a corrupt .nii.gz";
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(path("c.nii.gz") + ": ")) << e.what();
  }
}

// read_nifti_voxels and read_nifti_into's block check see the values read_nifti returns, for
// every type (uint8 as its bytes when a byte consumer is given), in order, in blocks.
TEST_F(NiftiTest, VoxelsHandedOutInBlocksAreTheVolumesValues) {
  Volume big;
  big.shape = {70, 60, 9};  // 37,800 voxels: three blocks
  big.data.resize(big.size());
  for (std::size_t i = 0; i < big.size(); ++i) big.data[i] = static_cast<double>(i % 3 == 0);
  big.affine = sample_volume().affine;
  for (NiftiType type : {NiftiType::uint8, NiftiType::int16, NiftiType::float32}) {
    const std::string file = path(std::string("b_") + std::string(to_string(type)) + ".nii.gz");
    write_nifti(file, big, type);
    std::vector<double> seen;
    std::size_t byte_blocks = 0;
    Volume header;
    read_nifti_voxels(
        file, header,
        [&](std::size_t first, std::span<const double> values) {
          EXPECT_EQ(first, seen.size());
          EXPECT_LE(values.size(), 16384u);
          seen.insert(seen.end(), values.begin(), values.end());
        },
        [&](std::size_t first, std::span<const std::uint8_t> bytes) {
          EXPECT_EQ(first, seen.size());
          ++byte_blocks;
          seen.insert(seen.end(), bytes.begin(), bytes.end());
        });
    EXPECT_EQ(seen, big.data);
    EXPECT_EQ(header.shape, big.shape);
    EXPECT_EQ(header.affine, big.affine);
    EXPECT_EQ(byte_blocks > 0, type == NiftiType::uint8);

    Volume checked;
    std::size_t blocks = 0;
    read_nifti_into(file, checked, [&](std::size_t, std::span<double> values) {
      ++blocks;
      for (double& x : values) x *= 2;  // a check may change the values it sees
    });
    EXPECT_EQ(blocks, 3u);
    for (std::size_t i = 0; i < big.size(); ++i) ASSERT_EQ(checked.data[i], 2 * big.data[i]);
  }
}

// A kept inflate buffer holds the previous, larger file's bytes beyond the next file's end:
// only the file's own bytes may be read.
TEST_F(NiftiTest, AKeptInflateBufferGivesEveryFileItsOwnBytes) {
  Volume small = sample_volume(), large;
  large.shape = {40, 30, 20};
  large.data.assign(large.size(), 7.0);
  large.affine = small.affine;
  write_nifti(path("small.nii.gz"), small, NiftiType::float64);
  write_nifti(path("large.nii.gz"), large, NiftiType::float64);
  const KeepInflateBuffer keep;
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(read_nifti(path("large.nii.gz")).data, large.data);
    EXPECT_EQ(read_nifti(path("small.nii.gz")).data, small.data);
  }
  const std::string truncated = read_bytes(path("small.nii.gz"));
  write_bytes(path("cut.nii.gz"), truncated.substr(0, truncated.size() / 2));
  EXPECT_THROW(read_nifti(path("cut.nii.gz")), Error);  // not the large file's leftover bytes
}

TEST_F(NiftiTest, ShapeStringAndGridComparison) {
  Volume a = sample_volume();
  Volume b = a;
  EXPECT_EQ(shape_string(a), "5×4×3");
  b.affine[3] += 1e-3;
  EXPECT_FALSE(same_grid(a, b));
  EXPECT_TRUE(same_grid(a, b, 1e-2));
  b = a;
  b.shape = {4, 5, 3};
  EXPECT_FALSE(same_grid(a, b));
  EXPECT_EQ(parse_nifti_type("uint8"), NiftiType::uint8);
  EXPECT_THROW_MSG(parse_nifti_type("float16"), Error,
                   "NIfTI data type: expected uint8, int16, int32, float32 or float64, found "
                   "\"float16\"");
}

}  // namespace
}  // namespace assay
