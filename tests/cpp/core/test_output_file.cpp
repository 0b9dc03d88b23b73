#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <string>

#include "assay/core/error.hpp"
#include "assay/core/output_file.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("assay_output_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  std::size_t files_in_dir() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }
  fs::path dir_;
};

// Lowers the process's file size limit for one scope (what `ulimit -f` does to a shell).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit lower = saved_;
    lower.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &lower);
  }
  ~FileSizeLimit() { ::setrlimit(RLIMIT_FSIZE, &saved_); }

 private:
  rlimit saved_{};
};

TEST_F(OutputFile, BatchCommitsEveryFileTogether) {
  OutputBatch batch;
  batch.stage(path("a.json"), "{}\n");
  batch.stage(path("b.html"), "<html></html>\n");
  EXPECT_FALSE(fs::exists(path("a.json")));  // nothing visible before the commit
  batch.commit();
  EXPECT_EQ(read_file(path("a.json")), "{}\n");
  EXPECT_EQ(read_file(path("b.html")), "<html></html>\n");
  EXPECT_EQ(files_in_dir(), 2u);  // no temporaries left
}

TEST_F(OutputFile, FailedLaterOutputLeavesNoEarlierOneBehind) {
  write_file_atomic(path("b.html"), "old page\n");
  {
    const FileSizeLimit limit(1000);
    OutputBatch batch;
    batch.stage(path("a.json"), std::string(100, 'x'));
    EXPECT_THROW_MSG(batch.stage(path("b.html"), std::string(5000, 'y')), Error,
                     "cannot write " + path("b.html") + ": File too large");
  }
  EXPECT_FALSE(fs::exists(path("a.json")));
  EXPECT_EQ(read_file(path("b.html")), "old page\n");  // the old file, not a truncated new one
  EXPECT_EQ(files_in_dir(), 1u);
}

TEST_F(OutputFile, FileSizeLimitLeavesNoTruncatedFile) {
  const FileSizeLimit limit(1000);
  EXPECT_THROW_MSG(write_file_atomic(path("m.html"), std::string(5000, 'z')), Error,
                   "cannot write " + path("m.html") + ": File too large");
  EXPECT_EQ(files_in_dir(), 0u);
}

TEST_F(OutputFile, TwoOutputsNamingOneFileAreRefused) {
  check_distinct_outputs({path("x"), "", path("y")}, {"--json-out", "--html", "--csv-out"});
  EXPECT_THROW_MSG(
      check_distinct_outputs({path("x"), (dir_ / "." / "x").string()}, {"--json-out", "--html"}),
      Error,
      "--json-out and --html name the same file " + (dir_ / "." / "x").string() +
          ": each output needs its own file");
}

TEST_F(OutputFile, UnwritableTargetsAreFoundBeforeAnyWork) {
  EXPECT_THROW_MSG(check_writable(""), Error, "cannot write an output with an empty file name");
  EXPECT_THROW_MSG(check_writable(dir_.string()), Error,
                   "cannot write " + dir_.string() + ": it is a folder");
  EXPECT_THROW_MSG(
      check_writable(path("missing/x.json")), Error,
      "cannot write " + path("missing/x.json") + ": folder " + path("missing") + " does not exist");
}

// Planning names a folder without making it; running makes it with its parents.
TEST_F(OutputFile, OutputFoldersArePlannedOrMade) {
  prepare_output_folder(path("a/b"), /*create=*/false);
  EXPECT_FALSE(fs::exists(path("a")));
  prepare_output_folder(path("a/b"), /*create=*/true);
  EXPECT_TRUE(fs::is_directory(path("a/b")));
  write_file_atomic(path("file"), "x");
  EXPECT_THROW_MSG(prepare_output_folder(path("file/sub"), false), Error,
                   path("file/sub") + ": cannot create directory: Not a directory");
  EXPECT_THROW_MSG(prepare_output_folder(path("file/sub"), true), Error,
                   path("file/sub") + ": cannot create directory: Not a directory");
}

}  // namespace
}  // namespace assay
