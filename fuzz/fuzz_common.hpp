// Shared harness for the libFuzzer targets in fuzz/ (docs/fuzzing.md).
//
// Each target hands the fuzzer's bytes to one parser entry point. assay::Error is the parser's
// clean answer to bad input and ends the run normally; any other exception (std::logic_error from
// ASSAY_ASSERT, std::bad_alloc, a library's own exception) is a finding: the harness prints it and
// aborts, so that libFuzzer saves the input. Crashes, sanitizer reports, timeouts and memory above
// -rss_limit_mb are findings by libFuzzer itself.
//
// The same targets build without libFuzzer (ASSAY_FUZZ_REPLAY): then main() feeds every file
// named on the command line (or every file in a named folder) to the target once, which is how
// ctest replays the regression inputs in tests/data/fuzz/<target>/.
#pragma once

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <string_view>
#include <typeinfo>

#include "assay/core/error.hpp"

namespace assay::fuzz {

/// Runs `parse`; assay::Error is a clean outcome, anything else aborts with a message.
template <class F>
int guarded(F&& parse) {
  try {
    parse();
  } catch (const assay::Error&) {
    // Bad input reported as it should be.
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "fuzz finding: std::bad_alloc escaped the parser\n");
    std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz finding: %s escaped the parser: %s\n", typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz finding: an unknown exception escaped the parser\n");
    std::abort();
  }
  return 0;
}

/// A scratch file holding the input, for parsers that read only from a path; removed on scope
/// exit. `suffix` picks the reader (".nii" / ".nii.gz").
class TempFile {
 public:
  TempFile(const std::uint8_t* data, std::size_t size, const std::string& suffix) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir && *dir ? dir : "/tmp") + "/assay-fuzz-" + std::to_string(::getpid()) +
            suffix;
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) {
      std::fprintf(stderr, "fuzz harness: cannot write %s\n", path_.c_str());
      std::abort();
    }
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace assay::fuzz

#ifdef ASSAY_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

// Replays files (or folders of files) through the target: exit 0 when every one is handled.
int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  int replayed = 0;
  auto replay = [&](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", file.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    ++replayed;
  };
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      for (const auto& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file()) replay(entry.path());
    } else {
      replay(arg);
    }
  }
  std::fprintf(stderr, "%d inputs handled\n", replayed);
  return 0;
}
#endif
