// count/encode: encoded models and formulas against enumeration (each projected model of a
// query's CNF must be an input where the query holds, and the other way round), query sizes and
// the parts the encoder refuses. The bit-vector arithmetic underneath is in test_cnf_builder.cpp.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "assay/core/error.hpp"
#include "assay/count/counting.hpp"
#include "assay/count/encode.hpp"
#include "assay/count/exact_counter.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"

namespace {

// ------------------------------------------------------------------ models against enumeration

// A random tree over d inputs with `leaves` leaves; values: k class counts.
assay::count::Tree random_tree(std::mt19937& rng, std::size_t d, std::size_t k, int depth,
                               const std::vector<double>& thresholds) {
  assay::count::Tree t;
  std::function<int(int)> grow = [&](int level) -> int {
    const int id = static_cast<int>(t.feature.size());
    t.feature.push_back(-2);
    t.threshold.push_back(-2);
    t.left.push_back(-1);
    t.right.push_back(-1);
    t.value.emplace_back(k, 0.0);
    if (level == depth || rng() % 4 == 0) {
      for (auto& v : t.value[id]) v = static_cast<double>(rng() % 5);
      return id;
    }
    t.feature[id] = static_cast<std::int32_t>(rng() % d);
    t.threshold[id] = thresholds[rng() % thresholds.size()];
    const int l = grow(level + 1);
    const int r = grow(level + 1);
    t.left[id] = l;
    t.right[id] = r;
    return id;
  };
  grow(0);
  return t;
}

assay::count::Model tree_model(std::mt19937& rng, assay::count::ModelKind kind, std::size_t n,
                               std::size_t k) {
  assay::count::Model m;
  m.kind = kind;
  m.n_features = 5;
  m.classes.clear();
  for (std::size_t c = 0; c < k; ++c) m.classes.push_back(std::to_string(c));
  m.n_outputs = kind == assay::count::ModelKind::boosted && k == 2 ? 1 : k;
  const std::vector<double> thresholds{-0.5, 0.5, 1.5, 2.5, 0.25, 1.75};
  for (std::size_t i = 0; i < n; ++i) {
    auto t = random_tree(rng, 5, kind == assay::count::ModelKind::boosted ? 1 : k, 3, thresholds);
    if (kind == assay::count::ModelKind::boosted) {
      t.output = static_cast<std::int32_t>(i % m.n_outputs);
      t.scale = 0.1;
      for (auto& v : t.value) v[0] = v[0] / 3.0 - 0.6;  // not exact in binary: ambiguity bands
    }
    m.trees.push_back(t);
  }
  if (kind == assay::count::ModelKind::boosted) {
    m.link = k == 2 ? assay::count::Link::logistic : assay::count::Link::softmax;
    m.base.assign(m.n_outputs, 0.05);
  }
  assay::count::validate(m);
  return m;
}

const char* kSpec = R"(
input a : bool;
input b : int[0, 3];
input c : int[0, 2];
input d : real[0, 2] step 0.25;
input e : bool;
pred P = (a and b >= 2) or (c + b == 3 and not e) or d < 0.75;
truth 1 = P;
safety S = b <= 1 => label == 0;
region R = ball([1, 2, 1, 1.0, 0], 1) label 1;
)";

const char* kSpec3 = R"(
input a : bool;
input b : int[0, 3];
input c : int[0, 2];
input d : real[0, 2] step 0.25;
input e : bool;
truth 0 = b + c <= 1;
truth 1 = b + c >= 2 and a;
truth 2 = b + c >= 2 and not a;
safety S = d > 1 => label != 2;
)";

void expect_same_counts(const assay::count::Model& m, const std::string& spec_text) {
  const auto spec = assay::count::parse_spec(spec_text, "t.spec");
  assay::count::CountParams p;
  p.method = assay::count::CountMethod::enumerate;
  const auto want = assay::count::count(m, spec, p);
  p.method = assay::count::CountMethod::exact_cnf;
  const auto got = assay::count::count(m, spec, p);
  ASSERT_EQ(got.labels.size(), want.labels.size());
  for (std::size_t l = 0; l < want.labels.size(); ++l) {
    EXPECT_EQ(got.labels[l].tp, want.labels[l].tp) << "label " << l;
    EXPECT_EQ(got.labels[l].fp, want.labels[l].fp) << "label " << l;
    EXPECT_EQ(got.labels[l].tn, want.labels[l].tn) << "label " << l;
    EXPECT_EQ(got.labels[l].fn, want.labels[l].fn) << "label " << l;
    EXPECT_TRUE(got.labels[l].guarantee.exact);
  }
  for (std::size_t i = 0; i < want.safety.size(); ++i) {
    EXPECT_EQ(got.safety[i].satisfied, want.safety[i].satisfied);
    EXPECT_EQ(got.safety[i].violated, want.safety[i].violated);
  }
  for (std::size_t i = 0; i < want.regions.size(); ++i) {
    EXPECT_EQ(got.regions[i].count, want.regions[i].count);
    EXPECT_EQ(got.regions[i].total, want.regions[i].total);
  }
}

TEST(Encode, TreesForestsAndBoostingCountAsEnumerationDoes) {
  std::mt19937 rng(7);
  using K = assay::count::ModelKind;
  for (int rep = 0; rep < 4; ++rep) {
    expect_same_counts(tree_model(rng, K::tree, 1, 2), kSpec);
    expect_same_counts(tree_model(rng, K::tree, 1, 3), kSpec3);
    auto vote = tree_model(rng, K::forest, 4, 2);
    vote.aggregation = assay::count::Aggregation::vote;
    expect_same_counts(vote, kSpec);
    auto average = tree_model(rng, K::forest, 3, 3);
    expect_same_counts(average, kSpec3);
    expect_same_counts(tree_model(rng, K::boosted, 5, 2), kSpec);
    expect_same_counts(tree_model(rng, K::boosted, 6, 3), kSpec3);
  }
}

TEST(Encode, NetworksCountAsEnumerationDoes) {
  std::mt19937 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int rep = 0; rep < 1; ++rep) {
    for (const std::size_t k : {std::size_t{1}, std::size_t{3}}) {
      assay::count::Model m;
      m.kind = assay::count::ModelKind::network;
      m.n_features = 5;
      m.n_outputs = k;
      m.classes =
          k == 1 ? std::vector<std::string>{"0", "1"} : std::vector<std::string>{"0", "1", "2"};
      const std::size_t sizes[] = {5, 6, 4, k};
      for (int l = 0; l < 3; ++l) {
        assay::count::Layer layer;
        layer.n_in = sizes[l];
        layer.n_out = sizes[l + 1];
        for (std::size_t i = 0; i < layer.n_in * layer.n_out; ++i)
          layer.weights.push_back(normal(rng));
        for (std::size_t i = 0; i < layer.n_out; ++i) layer.bias.push_back(normal(rng));
        layer.activation = l < 2 ? assay::count::Activation::relu
                                 : (k == 1 ? assay::count::Activation::logistic
                                           : assay::count::Activation::softmax);
        m.layers.push_back(layer);
      }
      assay::count::validate(m);
      expect_same_counts(m, k == 1 ? kSpec : kSpec3);
    }
  }
}

TEST(Encode, QueriesAndTheirSizes) {
  std::mt19937 rng(3);
  const auto m = tree_model(rng, assay::count::ModelKind::tree, 1, 2);
  const auto spec = assay::count::parse_spec(kSpec, "t.spec");
  assay::count::EncodeParams p;
  p.query = "tp";
  const auto e = assay::count::encode(m, spec, p);
  EXPECT_TRUE(e.exact);
  EXPECT_EQ(e.arithmetic, "exact");
  EXPECT_EQ(e.n_input_bits, 1u + 2u + 2u + 4u + 1u);
  EXPECT_EQ(e.cnf.projection.size(), e.n_input_bits);
  EXPECT_EQ(e.query, "tp of label 1 (class \"1\")");
  EXPECT_NE(e.cnf.comments[1].find("query: tp of label 1"), std::string::npos);
}

TEST(Encode, UnsupportedPartsAreNamed) {
  std::mt19937 rng(3);
  const auto m = tree_model(rng, assay::count::ModelKind::tree, 1, 2);
  auto err = [&](const std::string& spec_text, const assay::count::EncodeParams& p) {
    try {
      assay::count::encode(m, assay::count::parse_spec(spec_text, "t.spec"), p);
    } catch (const assay::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  assay::count::EncodeParams p;
  EXPECT_EQ(err("input x[5] : bool; truth 1 = score[1] > 0.5;", p),
            "score[1] is not supported by the CNF encoder (the model's scores are sums of real "
            "numbers); use method structural or enumerate");
  p.query = "violated";
  EXPECT_EQ(err("input x[5] : bool; truth 1 = x[0];", p),
            "query \"violated\" needs exactly one safety property; the spec selects 0 (name one "
            "with --property)");
  p.query = "bogus";
  EXPECT_EQ(err("input x[5] : bool; truth 1 = x[0];", p),
            "query must be one of tp, fp, tn, fn, truth, predicted, satisfied, violated, pre, "
            "robust, not-robust, region; found \"bogus\"");
  assay::count::Model net;
  net.kind = assay::count::ModelKind::network;
  net.n_features = 5;
  net.n_outputs = 2;
  net.classes = {"0", "1"};
  assay::count::Layer hidden{
      5, 2, std::vector<double>(10, 0.5), {0.0, 0.0}, assay::count::Activation::logistic};
  assay::count::Layer out{2, 2, {1, 0, 0, 1}, {0, 0}, assay::count::Activation::softmax};
  net.layers = {hidden, out};
  try {
    assay::count::encode(net, assay::count::parse_spec("input x[5] : bool; truth 1 = x[0];"), {});
    FAIL();
  } catch (const assay::Error& e) {
    EXPECT_STREQ(e.what(),
                 "the CNF encoder supports ReLU and identity hidden layers; layer 0 has a "
                 "logistic activation");
  }
}

}  // namespace
