// libFuzzer target: ONNX protobuf bytes -> assay::count::parse_onnx, then a prediction.
#include "assay/count/onnx.hpp"
#include "fuzz_common.hpp"
#include "model_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return assay::fuzz::guarded([&] {
    assay::fuzz::use_model(assay::count::parse_onnx(assay::fuzz::as_text(data, size), "fuzz.onnx"));
  });
}
