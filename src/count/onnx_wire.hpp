// The subset of onnx.proto that feed-forward graphs use, decoded from protobuf's wire format:
// varints, fixed 32/64-bit values and length-delimited fields (strings, bytes, sub-messages and
// packed repeated numbers). Unknown fields are skipped, as protobuf readers do. Errors name the
// source and the byte offset ("net.onnx: byte 812: truncated varint").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace assay::count::onnx {

/// TensorProto.DataType values that can hold weights or shapes.
enum DataType : std::int32_t {
  kFloat = 1,
  kInt32 = 6,
  kInt64 = 7,
  kDouble = 11,
};

struct Tensor {
  std::string name;
  std::vector<std::int64_t> dims;
  std::int32_t data_type = 0;
  std::vector<double> values;  ///< every element, row-major, widened exactly to double
  bool external = false;       ///< data_location = EXTERNAL (refused by the importer)
  std::size_t offset = 0;      ///< byte offset of the message, for messages

  std::size_t size() const;  ///< product of dims (1 for a scalar)
};

struct Attribute {
  std::string name;
  std::int32_t type = 0;
  float f = 0.0f;
  std::int64_t i = 0;
  std::string s;
  Tensor t;
  bool has_t = false;
  std::vector<float> floats;
  std::vector<std::int64_t> ints;
};

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<Attribute> attributes;
  std::size_t offset = 0;

  const Attribute* attribute(std::string_view name) const;
};

/// A graph input or output: its name, element type and shape. dim_param (a symbolic size) is
/// kept as text with value -1.
struct ValueInfo {
  std::string name;
  std::int32_t elem_type = 0;
  bool has_shape = false;
  std::vector<std::int64_t> dims;
  std::vector<std::string> dim_params;  ///< "" where the size is a number
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<Tensor> initializers;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
};

struct ModelProto {
  std::int64_t ir_version = 0;
  std::string producer;
  std::int64_t opset = 0;  ///< version of the default ("" or "ai.onnx") domain
  Graph graph;
  bool has_graph = false;
};

/// Decodes a ModelProto; throws assay::Error naming `where` and the byte offset on bad input.
ModelProto decode_model(std::string_view bytes, const std::string& where);

}  // namespace assay::count::onnx
