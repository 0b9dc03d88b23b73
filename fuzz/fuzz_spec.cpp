// libFuzzer target: spec text -> assay::count::parse_spec (lexer, parser and elaborator).
#include "assay/count/spec.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(assay::fuzz::as_text(data, size));
  return assay::fuzz::guarded([&] { assay::count::parse_spec(text, "fuzz.spec"); });
}
