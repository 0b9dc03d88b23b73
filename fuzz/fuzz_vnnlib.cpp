// libFuzzer target: VNN-LIB text -> assay::count::parse_vnnlib.
#include "assay/count/vnnlib.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(assay::fuzz::as_text(data, size));
  return assay::fuzz::guarded([&] { assay::count::parse_vnnlib(text, "fuzz.vnnlib"); });
}
