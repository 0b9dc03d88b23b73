// libFuzzer target: CSV text -> assay::parse_csv, serially with the default options and again
// with missing values, comments and tiny parallel chunks (the parallel splitter's edge cases).
#include "assay/core/csv.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = assay::fuzz::as_text(data, size);
  assay::fuzz::guarded([&] {
    assay::CsvParams serial;
    serial.threads = 1;
    assay::parse_csv(text, "fuzz.csv", serial);
  });
  return assay::fuzz::guarded([&] {
    assay::CsvParams chunked;
    chunked.allow_missing = true;
    chunked.comments = true;
    chunked.threads = 2;
    chunked.chunk_bytes = 64;
    assay::parse_csv(text, "fuzz.csv", chunked);
  });
}
