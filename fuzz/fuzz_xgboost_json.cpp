// libFuzzer target: xgboost JSON model text (Booster.save_model) -> assay::count::parse_model, then
// a prediction. (The same entry point as fuzz_model_json, grown from xgboost seeds and dictionary.)
#include "fuzz_common.hpp"
#include "model_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(assay::fuzz::as_text(data, size));
  return assay::fuzz::guarded(
      [&] { assay::fuzz::use_model(assay::count::parse_model(text, "fuzz.json")); });
}
