// Test helper shared by the bounds and domain-splitting tests: a seeded random ReLU network.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "assay/core/rng.hpp"
#include "assay/count/model.hpp"

namespace assay::count {

// A random dense ReLU network (seeded), classes "0".."k-1".
inline Model random_net(std::vector<std::size_t> widths, std::uint64_t seed, double scale = 1.0) {
  Rng rng(seed);
  Model m;
  m.kind = ModelKind::network;
  m.n_features = widths.front();
  m.n_outputs = widths.back();
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    Layer layer;
    layer.n_in = widths[l];
    layer.n_out = widths[l + 1];
    for (std::size_t i = 0; i < layer.n_in * layer.n_out; ++i) {
      layer.weights.push_back(scale * rng.normal() / std::sqrt(static_cast<double>(layer.n_in)));
    }
    for (std::size_t i = 0; i < layer.n_out; ++i) layer.bias.push_back(0.3 * rng.normal());
    layer.activation = l + 2 == widths.size() ? Activation::identity : Activation::relu;
    m.layers.push_back(std::move(layer));
  }
  for (std::size_t k = 0; k < m.n_outputs; ++k) m.classes.push_back(std::to_string(k));
  return m;
}

}  // namespace assay::count
