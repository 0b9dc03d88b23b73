// ONNX import: a feed-forward network stored as an ONNX graph becomes an assay network model
// (model.hpp: dense layers, y = act(W x + b)), ready for prediction and counting, or a graph
// network (ModelKind::graph, graph.hpp) when it is an image classifier.
//
// The file is read by decoding protobuf's wire format directly against the few messages of
// onnx.proto that a feed-forward graph needs (ModelProto, GraphProto, NodeProto, TensorProto,
// AttributeProto, ValueInfoProto); see docs/count_networks.md for why no protobuf library is
// linked. A graph that is a chain (every node reads the running tensor, the network's input
// transformed so far, and constants, and writes the next running tensor) of these operators
// becomes dense layers:
//
//   Gemm, MatMul            an affine map with a constant matrix (either operand order)
//   Add, Sub, Mul, Div      with a constant (scalar or broadcast vector) on either side
//                           (Div: only running tensor / constant)
//   Neg                     negates the running tensor
//   Relu, Sigmoid, Softmax  close the pending affine map into a layer with that activation
//                           (Softmax only as the last operator)
//   Flatten, Reshape, Identity, Squeeze, Unsqueeze   no change of element order
//   Dropout (inference), Cast (to float or double), Pad (of nothing)   no change at all
//   Transpose               reorders the elements: the pending map's rows follow them
//   Constant                a constant tensor
//   BatchNormalization      (inference form) folded into the pending affine map
//
// A node whose inputs are all constants, and Shape of the input or of any tensor of the chain,
// is evaluated at import into a new constant (Shape, Gather, Concat, Slice, Cast, Reshape,
// Flatten, Squeeze, Unsqueeze, Transpose, Add, Sub, Mul, Div, Neg, ConstantOfShape): exporters
// compute shapes in the graph (PyTorch's x.view(x.size(0), -1) is Shape -> Gather -> Unsqueeze
// -> Concat -> Reshape). A symbolic batch dimension is 1 there.
//
// Consecutive affine operators are composed into one dense layer (in float64; float32 weights are
// widened exactly).
//
// A graph with Conv (2-D: strides, pads, dilations, group, auto_pad), MaxPool, AveragePool,
// GlobalAveragePool, GlobalMaxPool, Pad (constant mode), Tanh, Concat or Slice of computed
// tensors, or a tensor read by two nodes (a skip connection: Add or Sub of two computed
// tensors), becomes a graph network instead: linear operators compose into sparse matrices (a
// convolution is never made dense), Relu, Sigmoid, Tanh and MaxPool become nodes, and a final
// Softmax or Sigmoid becomes the model's graph_output_activation. Anything else is refused with the
// node's name and operator, as are shapes that do not fit (a Conv whose weights expect other input
// channels, a kernel larger than the padded input), symbolic dimensions other than a leading batch
// dimension, external tensor data and NaN or infinite weights.
//
// Example:
//   Model m = load_onnx("ACASXU_run2a_1_1_batch_2000.onnx");
//   m.n_features;       // 5
//   m.layers.size();    // 7 (6 ReLU layers of 50, one identity layer of 5)
//   Model r = load_onnx("resnet_2b.onnx");   // cifar10_resnet, VNN-COMP 2021
//   r.kind;             // ModelKind::graph
//   r.n_features;       // 3072 (an image 1x3x32x32, NCHW)
//
// Imported models are classifiers with classes "0".."K-1" (label = argmax) when they have K >= 2
// outputs, regressors with one output, and binary classifiers (label 1 iff p > 0.5) when the one
// output ends in Sigmoid.
#pragma once

#include <string>
#include <string_view>

#include "assay/count/model.hpp"

namespace assay::count {

/// Decodes ONNX bytes; `where` names the source in error messages ("net.onnx: node "n3" (Conv):
/// unsupported operator ...", "net.onnx: byte 1234: truncated field").
Model parse_onnx(std::string_view bytes, const std::string& where = "<onnx>");

/// Reads an ONNX file.
Model load_onnx(const std::string& path);

/// Reads a model: ONNX when the name ends in ".onnx", else assay JSON or xgboost JSON.
Model load_any_model(const std::string& path);

}  // namespace assay::count
