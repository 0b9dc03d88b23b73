// libFuzzer target: assay model JSON text -> assay::count::parse_model, then a prediction.
// (fuzz_xgboost_json runs the same entry point from xgboost JSON seeds.)
#include "fuzz_common.hpp"
#include "model_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(assay::fuzz::as_text(data, size));
  return assay::fuzz::guarded(
      [&] { assay::fuzz::use_model(assay::count::parse_model(text, "fuzz.json")); });
}
