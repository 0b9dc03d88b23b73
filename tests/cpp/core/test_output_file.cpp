#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <latch>
#include <string>
#include <thread>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
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

// --- outputs never replace inputs, devices or FIFOs ------------------------------------------

std::string refused_input(const std::string& lead, const std::string& input,
                          const std::string& role) {
  return lead + " the input file " + input + " (" + role +
         "); an output never replaces an input: choose another name";
}

TEST_F(OutputFile, AnInputIsRefusedHoweverItIsSpelled) {
  write_file_atomic(path("base.csv"), "y,s\n1,0.5\n");
  fs::create_hard_link(path("base.csv"), path("hard.csv"));
  fs::create_symlink("base.csv", path("link.csv"));
  const std::string spelled = (dir_ / "." / "base.csv").string();
  const InputFilesScope inputs;
  note_input(spelled, "the data");
  for (const std::string& given : {path("base.csv"), (dir_ / "sub" / ".." / "base.csv").string(),
                                   path("hard.csv"), path("link.csv")}) {
    if (given.find("sub") != std::string::npos) fs::create_directories(path("sub"));
    EXPECT_THROW_MSG(check_writable(given, "--html"), Error,
                     refused_input("--html " + given + ": is", spelled, "the data"));
    EXPECT_THROW_MSG(write_file_atomic(given, "x"), Error,
                     refused_input(given + ": is", spelled, "the data"));
    OutputBatch batch;
    EXPECT_THROW_MSG(batch.stage(given, "x"), Error,
                     refused_input(given + ": is", spelled, "the data"));
  }
  EXPECT_EQ(read_file(path("base.csv")), "y,s\n1,0.5\n");
  EXPECT_TRUE(fs::is_symlink(path("link.csv")));
  EXPECT_EQ(files_in_dir(), 4u);  // base, hard, link, sub: no temporary left
}

TEST_F(OutputFile, ReadersNoteWhatTheyOpen) {
  write_file_atomic(path("base.csv"), "y\n1\n");
  const InputFilesScope inputs;
  read_csv(path("base.csv"));
  EXPECT_THROW_MSG(write_file_atomic(path("base.csv"), "x"), Error,
                   refused_input(path("base.csv") + ": is", path("base.csv"), "a CSV input"));
  note_input(path("base.csv"), "the data");  // the first note keeps its role
  EXPECT_EQ(noted_input(path("base.csv"))->role, "a CSV input");
  note_input(path("missing.csv"), "the data");  // names no file: nothing to protect
  write_file_atomic(path("missing.csv"), "new\n");
}

// A Python session may write a file it read in an earlier call: only a live scope records.
TEST_F(OutputFile, InputsAreRecordedOnlyWhileAScopeLives) {
  write_file_atomic(path("base.csv"), "y\n1\n");
  note_input(path("base.csv"), "the data");
  write_file_atomic(path("base.csv"), "y\n2\n");
  {
    const InputFilesScope outer;
    {
      const InputFilesScope inner;
      note_input(path("base.csv"), "the data");
    }
    EXPECT_TRUE(noted_input(path("base.csv")));  // the outer scope still lives
  }
  EXPECT_FALSE(noted_input(path("base.csv")));
  write_file_atomic(path("base.csv"), "y\n3\n");
  EXPECT_EQ(read_file(path("base.csv")), "y\n3\n");
}

TEST_F(OutputFile, OutputsInAFolderNameTheFolderAndTheFile) {
  fs::create_directories(path("out"));
  write_file_atomic(path("out/results.csv"), "a\n1\n");
  const InputFilesScope inputs;
  note_input(path("out/results.csv"), "the data");
  check_derived_outputs(path("out"), {"report.html"}, "--out " + path("out"));
  check_derived_outputs(path("new"), {"results.csv"}, "--out " + path("new"));  // need not exist
  EXPECT_THROW_MSG(
      check_derived_outputs(path("out"), {"report.html", "results.csv"}, "--out " + path("out")),
      Error,
      refused_input("--out " + path("out") + ": writes " + path("out/results.csv") + ", which is",
                    path("out/results.csv"), "the data"));
  EXPECT_THROW_MSG(
      prepare_output_folder(path("out/results.csv"), true), Error,
      refused_input(path("out/results.csv") + ": is", path("out/results.csv"), "the data"));
  EXPECT_EQ(read_file(path("out/results.csv")), "a\n1\n");
}

TEST_F(OutputFile, FifosAndSocketsAreRefusedNotOpened) {
  ASSERT_EQ(::mkfifo(path("pipe").c_str(), 0600), 0);
  const std::string fifo =
      ": is a FIFO (named pipe), not a regular file; assay writes outputs to "
      "regular files only";
  EXPECT_THROW_MSG(check_writable(path("pipe"), "--json-out"), Error,
                   "--json-out " + path("pipe") + fifo);
  EXPECT_THROW_MSG(write_file_atomic(path("pipe"), "x"), Error, path("pipe") + fifo);
  fs::create_symlink("pipe", path("to_pipe"));
  EXPECT_THROW_MSG(write_file_atomic(path("to_pipe"), "x"), Error, path("to_pipe") + fifo);
  EXPECT_TRUE(fs::is_fifo(path("pipe")));

  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string socket_path = path("sock");
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  std::copy(socket_path.begin(), socket_path.end(), address.sun_path);
  ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  EXPECT_THROW_MSG(write_file_atomic(socket_path, "x"), Error,
                   socket_path +
                       ": is a socket, not a regular file; assay writes outputs to regular files "
                       "only");
  ::close(s);
  EXPECT_TRUE(fs::is_socket(socket_path));
  EXPECT_EQ(files_in_dir(), 3u);
}

// As root, renaming over a device deleted it. /dev/null itself is only checked (check_writable
// never renames); a device node of our own takes the writes.
TEST_F(OutputFile, DevicesAreRefused) {
  const std::string device =
      ": is a character device, not a regular file; assay writes outputs "
      "to regular files only";
  EXPECT_THROW_MSG(check_writable("/dev/null", "--json-out"), Error,
                   "--json-out /dev/null" + device);
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  ASSERT_EQ(::mknod(path("null").c_str(), S_IFCHR | 0666, ::makedev(1, 3)), 0);
  EXPECT_THROW_MSG(write_file_atomic(path("null"), "x"), Error, path("null") + device);
  OutputBatch batch;
  EXPECT_THROW_MSG(batch.stage(path("null"), "x"), Error, path("null") + device);
  EXPECT_TRUE(fs::is_character_file(path("null")));
  EXPECT_EQ(files_in_dir(), 1u);
}

// A link to a regular file (or to a file not made yet) is followed: the file it points to gets
// the bytes and the link stays a link, in its own folder or another.
TEST_F(OutputFile, LinksToRegularFilesAreFollowed) {
  fs::create_directories(path("real"));
  write_file_atomic(path("real/page.html"), "old\n");
  fs::create_symlink("real/page.html", path("page.html"));
  fs::create_symlink("page.html", path("chain.html"));
  fs::create_symlink(path("real/new.json"), path("new.json"));  // dangling until written
  check_writable(path("chain.html"), "--html");
  write_file_atomic(path("chain.html"), "one\n");
  EXPECT_EQ(read_file(path("real/page.html")), "one\n");
  OutputBatch batch;
  batch.stage(path("page.html"), "two\n");
  batch.stage(path("new.json"), "{}\n");
  batch.commit();
  EXPECT_EQ(read_file(path("real/page.html")), "two\n");
  EXPECT_EQ(read_file(path("real/new.json")), "{}\n");
  for (const char* link : {"page.html", "chain.html", "new.json"}) {
    EXPECT_TRUE(fs::is_symlink(path(link))) << link;
  }
  EXPECT_EQ(files_in_dir(), 4u);
  EXPECT_EQ(std::distance(fs::directory_iterator(path("real")), {}), 2);

  fs::create_symlink("loop_b", path("loop_a"));
  fs::create_symlink("loop_a", path("loop_b"));
  EXPECT_THROW_MSG(write_file_atomic(path("loop_a"), "x"), Error,
                   "cannot write " + path("loop_a") + ": Too many levels of symbolic links");
}

// Two processes (here threads, which flock separates the same way) committing the same targets
// in two folders: every trial ends with every file from one run, never some of each. Twenty files
// per run make the renames of the two runs interleave when nothing orders them.
TEST_F(OutputFile, ConcurrentCommitsLeaveTheSetOfOneRun) {
  fs::create_directories(path("other"));
  auto file = [&](int i) { return path(i % 2 ? "other/f" : "f") + std::to_string(i); };
  for (int trial = 0; trial < 20; ++trial) {
    std::latch staged(2);
    auto run = [&](const std::string& name) {
      OutputBatch batch;
      for (int i = 0; i < 20; ++i) batch.stage(file(i), name);
      staged.arrive_and_wait();
      batch.commit();
    };
    std::thread a(run, "a"), b(run, "b");
    a.join();
    b.join();
    const std::string first = read_file(file(0));
    for (int i = 1; i < 20; ++i) ASSERT_EQ(read_file(file(i)), first) << "trial " << trial;
  }
}

// Another process's commit holds the folder's lock: this commit waits for it.
TEST_F(OutputFile, CommitWaitsForTheLockOfTheTargetsFolder) {
  const int folder = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_EQ(::flock(folder, LOCK_EX), 0);
  OutputBatch batch;
  batch.stage(path("a.json"), "{}\n");
  std::thread commit([&] { batch.commit(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(fs::exists(path("a.json")));
  ::close(folder);  // releases the lock
  commit.join();
  EXPECT_EQ(read_file(path("a.json")), "{}\n");
}

}  // namespace
}  // namespace assay
