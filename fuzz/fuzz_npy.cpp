// libFuzzer target: .npy bytes -> assay::parse_npy.
#include "assay/core/npy.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return assay::fuzz::guarded(
      [&] { assay::parse_npy(assay::fuzz::as_text(data, size), "fuzz.npy"); });
}
