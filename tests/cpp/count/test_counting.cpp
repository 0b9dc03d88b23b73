// count/counting: structural counts equal full enumeration on every 16-bit case, known counts of
// graph properties, robustness regions with big integers, the statistical view, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/warning.hpp"
#include "assay/count/counting.hpp"
#include "test_util.hpp"

namespace assay::count {
namespace {

Spec graph_spec(int n) {
  return load_spec(std::string(ASSAY_SOURCE_DIR) + "/examples/count/graph" + std::to_string(n) +
                   ".spec");
}

// A random tree over the domain, nodes in depth-first order (children after parents).
// Thresholds sit on grid values (so <= and < differ), between them, or just below one.
Tree random_tree(Rng& rng, const Domain& d, int depth, std::size_t width, bool one_value) {
  Tree t;
  std::function<std::int32_t(int)> grow = [&](int level) -> std::int32_t {
    const auto id = static_cast<std::int32_t>(t.feature.size());
    t.feature.push_back(0);
    t.threshold.push_back(0);
    t.left.push_back(-1);
    t.right.push_back(-1);
    t.value.emplace_back();
    if (level == depth || (level > 1 && rng.below(5) == 0)) {
      std::vector<double> v(one_value ? 1 : width);
      for (double& x : v) x = static_cast<double>(rng.below(20));
      if (one_value) v[0] = rng.uniform() - 0.5;
      t.value[id] = v;
      return id;
    }
    const auto f = static_cast<std::int32_t>(rng.below(d.vars.size()));
    const VarDomain& dv = d.vars[f];
    const std::uint64_t k = rng.below(std::max<std::uint64_t>(dv.size - 1, 1));
    const double offsets[] = {0.0, 0.5, 0.999999, 1.0};
    t.feature[id] = f;
    t.threshold[id] = dv.value(k) + dv.step * offsets[rng.below(4)];
    const std::int32_t l = grow(level + 1);
    const std::int32_t r = grow(level + 1);
    t.left[id] = l;
    t.right[id] = r;
    return id;
  };
  grow(0);
  return t;
}

Model random_model(ModelKind kind, const Domain& d, std::size_t n_classes, std::uint64_t seed,
                   SplitRule rule = SplitRule::less_equal, bool float32 = true) {
  Rng rng(seed);
  Model m;
  m.kind = kind;
  m.n_features = d.vars.size();
  m.split_rule = rule;
  m.input_float32 = float32;
  for (std::size_t k = 0; k < n_classes; ++k) m.classes.push_back(std::to_string(k));
  if (kind == ModelKind::boosted) {
    m.n_outputs = n_classes == 2 ? 1 : n_classes;
    m.link = n_classes == 2 ? Link::logistic : Link::softmax;
    m.base.assign(m.n_outputs, 0.1);
    for (std::size_t t = 0; t < 6; ++t) {
      Tree tree = random_tree(rng, d, 4, 1, true);
      tree.output = static_cast<std::int32_t>(t % m.n_outputs);
      tree.scale = 0.5;
      m.trees.push_back(std::move(tree));
    }
  } else {
    m.n_outputs = n_classes;
    const std::size_t n_trees = kind == ModelKind::forest ? 4 : 1;
    for (std::size_t t = 0; t < n_trees; ++t) {
      m.trees.push_back(random_tree(rng, d, kind == ModelKind::forest ? 4 : 8, n_classes, false));
    }
  }
  validate(m);
  return m;
}

Model constant_model(std::size_t n_features, std::int32_t label) {
  Model m;
  m.kind = ModelKind::tree;
  m.n_features = n_features;
  m.n_outputs = 2;
  m.classes = {"0", "1"};
  Tree t;
  t.feature = {0};
  t.threshold = {0};
  t.left = {-1};
  t.right = {-1};
  t.value = {{label == 0 ? 1.0 : 0.0, label == 1 ? 1.0 : 0.0}};
  m.trees.push_back(t);
  return m;
}

void expect_same_counts(const CountResult& a, const CountResult& b, const std::string& what) {
  ASSERT_EQ(a.labels.size(), b.labels.size()) << what;
  for (std::size_t l = 0; l < a.labels.size(); ++l) {
    EXPECT_EQ(a.labels[l].tp, b.labels[l].tp) << what << " label " << l;
    EXPECT_EQ(a.labels[l].fp, b.labels[l].fp) << what << " label " << l;
    EXPECT_EQ(a.labels[l].tn, b.labels[l].tn) << what << " label " << l;
    EXPECT_EQ(a.labels[l].fn, b.labels[l].fn) << what << " label " << l;
  }
  ASSERT_EQ(a.safety.size(), b.safety.size());
  for (std::size_t i = 0; i < a.safety.size(); ++i) {
    EXPECT_EQ(a.safety[i].satisfied, b.safety[i].satisfied) << what;
    EXPECT_EQ(a.safety[i].violated, b.safety[i].violated) << what;
  }
  ASSERT_EQ(a.regions.size(), b.regions.size());
  for (std::size_t i = 0; i < a.regions.size(); ++i) {
    EXPECT_EQ(a.regions[i].total, b.regions[i].total) << what;
    EXPECT_EQ(a.regions[i].count, b.regions[i].count) << what;
  }
  EXPECT_EQ(a.correct, b.correct) << what;
}

CountResult run(const Model& m, const Spec& s, const std::string& property,
                const std::string& method) {
  CountParams p;
  p.property = property;
  p.method = parse_count_method(method);
  p.threads = 2;
  ScopedWarningHandler quiet(WarningHandler{});
  return count(m, s, p);
}

const char* const kProperties[] = {"Reflexive",      "Irreflexive",  "Symmetric",   "Antisymmetric",
                                   "Transitive",     "Connex",       "Equivalence", "PreOrder",
                                   "NonStrictOrder", "PartialOrder", "StrictOrder", "TotalOrder"};

TEST(Counting, KnownPositiveCountsOfGraphProperties) {
  // A model that always says 1: TP = number of graphs with the property.
  const std::pair<int, std::vector<std::pair<const char*, long>>> known[] = {
      {4,
       {{"Reflexive", 4096},
        {"Antisymmetric", 11664},
        {"Connex", 729},
        {"Transitive", 3994},
        {"PreOrder", 355},
        {"StrictOrder", 219},
        {"NonStrictOrder", 219},
        {"TotalOrder", 24},
        {"Equivalence", 15}}},
      {5,
       {{"Reflexive", 1048576},
        {"Antisymmetric", 1889568},
        {"Connex", 59049},
        {"Transitive", 154303},
        {"PreOrder", 6942},
        {"StrictOrder", 4231},
        {"NonStrictOrder", 4231},
        {"TotalOrder", 120},
        {"Equivalence", 52}}}};
  for (const auto& [n, counts] : known) {
    const Spec s = graph_spec(n);
    const Model m = constant_model(static_cast<std::size_t>(n * n), 1);
    for (const auto& [name, positives] : counts) {
      const CountResult r = run(m, s, name, "structural");
      EXPECT_EQ(r.labels[1].tp, mpz_class(positives)) << n << " " << name;
      EXPECT_EQ(r.labels[1].fn, 0) << name;
      EXPECT_EQ(r.labels[1].tp + r.labels[1].fp, r.domain_size) << name;
      EXPECT_DOUBLE_EQ(r.labels[1].precision,
                       static_cast<double>(positives) / r.domain_size.get_d());
      EXPECT_DOUBLE_EQ(r.labels[1].recall, 1.0);
      if (n == 4) expect_same_counts(r, run(m, s, name, "enumerate"), name);
    }
  }
  // 6 nodes: PreOrder 209527, StrictOrder 130023, TotalOrder 720.
  const Spec s6 = graph_spec(6);
  const Model m6 = constant_model(36, 1);
  EXPECT_EQ(run(m6, s6, "PreOrder", "auto").labels[1].tp, mpz_class(209527));
  EXPECT_EQ(run(m6, s6, "StrictOrder", "auto").labels[1].tp, mpz_class(130023));
  EXPECT_EQ(run(m6, s6, "TotalOrder", "auto").labels[1].tp, mpz_class(720));
}

TEST(Counting, StructuralEqualsEnumerationOnGraphPropertiesForRandomTrees) {
  const Spec s = graph_spec(4);
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    const Model m = random_model(ModelKind::tree, s.domain, 2, seed);
    for (const char* name : kProperties) {
      const CountResult a = run(m, s, name, "structural");
      const CountResult b = run(m, s, name, "enumerate");
      expect_same_counts(a, b, std::string(name) + " seed " + std::to_string(seed));
      EXPECT_EQ(a.labels[0].tp, a.labels[1].tn);
      EXPECT_EQ(a.labels[1].tp + a.labels[1].fp + a.labels[1].tn + a.labels[1].fn, 65536);
    }
  }
}

TEST(Counting, ResultsDoNotDependOnTheThreadCount) {
  const Spec s = graph_spec(5);
  const Model m = random_model(ModelKind::forest, s.domain, 2, 77);
  CountParams p;
  p.property = "PartialOrder";
  ScopedWarningHandler quiet(WarningHandler{});
  p.threads = 1;
  const CountResult one = count(m, s, p);
  p.threads = 3;
  const CountResult three = count(m, s, p);
  expect_same_counts(one, three, "threads");
  EXPECT_EQ(one.boxes, three.boxes);
}

TEST(Counting, StructuralEqualsEnumerationOnIntegerArithmetic) {
  // 4 integers in [0, 15] (16 bits), a linear truth, three labels, every tree kind and rule.
  const Spec s = parse_spec(
      "input a[4] : int[0, 15];\n"
      "truth 0 = a[0] + 2 * a[1] - a[2] <= 10;\n"
      "truth 1 = a[0] + 2 * a[1] - a[2] > 10 and a[3] * 3 != 9;\n"
      "truth 2 = a[0] + 2 * a[1] - a[2] > 10 and a[3] == 3;\n"
      "safety S = a[3] >= 8 => label != 2 and score[0] >= 0 - 100;\n");
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    for (auto kind : {ModelKind::tree, ModelKind::forest, ModelKind::boosted}) {
      for (auto rule : {SplitRule::less_equal, SplitRule::less}) {
        const Model m = random_model(kind, s.domain, 3, seed * 7 + 1, rule, seed % 2 == 0);
        const std::string what = to_string(kind) + " seed " + std::to_string(seed);
        expect_same_counts(run(m, s, "", "structural"), run(m, s, "", "enumerate"), what);
      }
    }
  }
}

// A chain of 200,000 thresholds on one input (node 2i tests x <= i + 0.5; its left leaf says
// x == i, class 1 for even i): the structural search walks it with its own stack, as deep as
// the tree, where recursion overflowed the call stack.
TEST(Counting, StructuralHandlesAChainOf200000Thresholds) {
  const Spec s = parse_spec("input x : int[0, 300000];\ntruth 1 = x > 1000;\n");
  constexpr std::int32_t n = 200000;
  Model m = constant_model(1, 0);
  m.input_float32 = false;
  Tree& t = m.trees[0];
  t = Tree{};
  for (std::int32_t i = 0; i < n; ++i) {
    t.feature.insert(t.feature.end(), {0, 0});
    t.threshold.insert(t.threshold.end(), {i + 0.5, 0.0});
    t.left.insert(t.left.end(), {2 * i + 1, -1});
    t.right.insert(t.right.end(), {2 * i + 2, -1});
    t.value.push_back({1.0, 1.0});
    t.value.push_back(i % 2 == 0 ? std::vector<double>{0.0, 1.0} : std::vector<double>{1.0, 0.0});
  }
  t.feature.push_back(0);
  t.threshold.push_back(0.0);
  t.left.push_back(-1);
  t.right.push_back(-1);
  t.value.push_back({1.0, 0.0});
  validate(m);
  const CountResult r = run(m, s, "", "structural");
  // Label 1 exactly on the even x below n; the truth holds on x > 1000.
  const long even_above = (n - 2 - 1002) / 2 + 1;  // 1002, 1004, ..., 199998
  EXPECT_EQ(r.labels[1].tp, mpz_class(even_above));
  EXPECT_EQ(r.labels[1].fp, mpz_class(501));  // 0, 2, ..., 1000
  EXPECT_EQ(r.labels[1].fn, mpz_class(300000 - 1000 - even_above));
  EXPECT_EQ(r.labels[1].tn, mpz_class(1001 - 501));
}

// Overall accuracy needs one true label per point: truths that overlap (a = 2 satisfies both
// truth 1 and truth 2) or leave gaps make it NaN with a warning; per-label counts stay exact.
TEST(Counting, OverlappingOrMissingTruthsMakeAccuracyUndefined) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"truth 0 = a < 2;\ntruth 1 = a >= 2;\ntruth 2 = a == 2;\n",
       "overall accuracy is undefined: the truths hold on 5 points in all, but the domain has 4 "
       "(some points satisfy two truths); per-label counts are still exact"},
      {"truth 0 = a < 1;\ntruth 1 = a == 1;\ntruth 2 = a == 2;\n",
       "overall accuracy is undefined: the truths hold on 3 points in all, but the domain has 4 "
       "(some points satisfy no truth); per-label counts are still exact"}};
  for (const auto& [truths, message] : cases) {
    const Spec s = parse_spec("input a : int[0, 3];\n" + truths, "t.spec");
    const Model m = random_model(ModelKind::tree, s.domain, 3, 5);
    for (const char* method : {"structural", "enumerate"}) {
      std::vector<std::string> warnings;
      ScopedWarningHandler capture([&](const std::string& w) { warnings.push_back(w); });
      CountParams p;
      p.method = parse_count_method(method);
      const CountResult r = count(m, s, p);
      EXPECT_TRUE(std::isnan(r.accuracy)) << method;
      EXPECT_NE(std::find(warnings.begin(), warnings.end(), message), warnings.end()) << method;
    }
  }
}

TEST(Counting, StructuralEqualsEnumerationOnRealGridsAndBooleans) {
  const Spec s = parse_spec(
      "input r[2] : real[-1, 1] step 0.125;\n"
      "input k : int[0, 7];\n"
      "input b[4] : bool;\n"
      "truth 1 = (r[0] - r[1] * 2 > 0.25 or b[0] and not b[1]) and (sum i in 0..3 : b[i]) <= k;\n"
      "region R = ball([0.5, -0.25, 3, 1, 0, 1, 1], 1) label 1;\n"
      "safety T = r[0] > 0 and b[2] => label == 1 or k + r[1] < 3;\n");
  EXPECT_EQ(s.domain.size(), mpz_class(17 * 17 * 8 * 16));
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    for (auto kind : {ModelKind::tree, ModelKind::forest, ModelKind::boosted}) {
      const Model m = random_model(kind, s.domain, 2, seed + 100);
      const CountResult a = run(m, s, "", "structural");
      expect_same_counts(a, run(m, s, "", "enumerate"), to_string(kind));
      ASSERT_EQ(a.regions.size(), 1u);
      // r[0] in [-0.5, 1]: 13 points; r[1] in [-1, 0.75] (clipped): 15; k in 2..4; b free.
      EXPECT_EQ(a.regions[0].total, 13 * 15 * 3 * 16);
    }
  }
}

TEST(Counting, RobustnessOfA784PixelTreeIsExactWithBigIntegers) {
  // Label 1 iff pixel 0 > 100.5 or pixel 1 <= 3.5 (on 28 x 28 images, pixels 0..255).
  Model m;
  m.kind = ModelKind::tree;
  m.n_features = 784;
  m.n_outputs = 2;
  m.classes = {"0", "1"};
  Tree t;
  t.feature = {0, 1, 0, 0, 0};
  t.threshold = {100.5, 3.5, 0, 0, 0};
  t.left = {1, 3, -1, -1, -1};
  t.right = {2, 4, -1, -1, -1};
  t.value = {{0, 0}, {0, 0}, {0, 1}, {0, 1}, {1, 0}};
  m.trees.push_back(t);
  std::vector<double> x(784, 50.0);
  x[0] = 100;  // 99, 100, 101: one of three is > 100.5
  x[1] = 4;    // 3, 4, 5: one of three is <= 3.5
  x[2] = 0;    // clipped: 0, 1
  RobustnessParams p;
  p.epsilon = 1;
  p.label = 1;
  p.lower = {0};
  p.upper = {255};
  p.samples = {100, 1000};
  p.seed = 3;
  const RobustnessResult r = robustness(m, x, p);
  mpz_class total;
  mpz_ui_pow_ui(total.get_mpz_t(), 3, 783);
  total *= 2;
  EXPECT_EQ(r.total, total);
  // label 1 unless (x0 <= 100.5 and x1 > 3.5): 1 - (2/3)(2/3) = 5/9.
  EXPECT_EQ(r.count * 9, r.total * 5);
  EXPECT_NEAR(r.robustness, 5.0 / 9.0, 1e-15);
  EXPECT_EQ(to_scientific(r.total), "7.71e+373");
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.samples[0].n, 100u);
  EXPECT_NEAR(r.samples[1].value, 5.0 / 9.0, 0.06);
  EXPECT_EQ(r.method, "structural");
  // Same seed, same samples.
  EXPECT_EQ(robustness(m, x, p).samples[1].k, r.samples[1].k);
}

TEST(Counting, SamplesAndTestSetGiveTheStatisticalView) {
  const Spec s = graph_spec(4);
  const Model m = random_model(ModelKind::tree, s.domain, 2, 9);
  CountParams p;
  p.property = "Antisymmetric";
  p.samples = {100, 10000};
  p.seed = 5;
  p.test_x.assign(16 * 3, 0.0);
  p.test_y = {1, 0, 1};
  ScopedWarningHandler quiet(WarningHandler{});
  const CountResult r = count(m, s, p);
  ASSERT_EQ(r.samples.size(), 3u);
  EXPECT_EQ(r.samples[0].source, "test set");
  EXPECT_EQ(r.samples[0].n, 3u);
  EXPECT_EQ(r.samples[1].n, 100u);
  const auto& big = r.samples[2].labels[1];
  EXPECT_EQ(big.tp + big.fp + big.tn + big.fn, 10000u);
  // 10000 uniform samples estimate the exact accuracy well (Wilson interval at 95%).
  EXPECT_NEAR(big.accuracy.value, r.labels[1].accuracy, 0.03);
  const CountResult again = count(m, s, p);
  EXPECT_EQ(again.samples[2].labels[1].tp, big.tp);
}

TEST(Counting, BadInput) {
  const Spec s = graph_spec(4);
  const Model m = constant_model(16, 1);
  EXPECT_THROW_MSG(run(constant_model(25, 1), s, "Reflexive", "auto"), Error,
                   "the model has 25 features but " ASSAY_SOURCE_DIR
                   "/examples/count/graph4.spec declares 16 inputs");
  EXPECT_THROW_MSG(run(m, s, "Reflexiv", "auto"), Error,
                   ASSAY_SOURCE_DIR
                   "/examples/count/graph4.spec defines no predicate, safety "
                   "property or region named \"Reflexiv\" (available: Reflexive, "
                   "Irreflexive, Symmetric, Antisymmetric, Transitive, Connex, "
                   "Equivalence, PreOrder, NonStrictOrder, PartialOrder, "
                   "StrictOrder, TotalOrder)");
  EXPECT_THROW_MSG(run(m, s, "", "auto"), Error,
                   ASSAY_SOURCE_DIR
                   "/examples/count/graph4.spec has nothing to count: declare "
                   "truth, safety or region statements, or give a property name");
  EXPECT_THROW_MSG(
      run(m, s, "Reflexive", "fast"), Error,
      "method must be auto, structural, enumerate, exact-cnf, approx or split, found \"fast\"");
  const Spec t = parse_spec("input a : int[0, 3];\ntruth 2 = a > 1;\n", "t.spec");
  EXPECT_THROW_MSG(run(constant_model(1, 1), t, "", "auto"), Error,
                   "t.spec: truth of label 2, but the model has 2 classes");
  const Spec u = parse_spec("input a : int[0, 3];\nsafety S = a > 1 => score[4] > 0;\n", "u.spec");
  Model one = constant_model(1, 0);
  EXPECT_THROW_MSG(run(one, u, "", "auto"), Error,
                   "safety property S reads score[4], but the model has 2 outputs");
  const Spec big = parse_spec("input a[40] : bool;\ntruth 1 = a[0];\n", "big.spec");
  EXPECT_THROW_MSG(run(constant_model(40, 1), big, "", "enumerate"), Error,
                   "the domain has 1.10e+12 points, more than the enumeration limit 4294967296 "
                   "(use the structural method for tree models)");
  RobustnessParams p;
  p.lower = {0};
  p.upper = {3};
  const std::vector<double> x{7};
  EXPECT_THROW_MSG(robustness(one, x, p), Error,
                   "the center's x[0] = 7 lies outside the domain [0, 3]");
  p.lower = {0, 0};
  const std::vector<double> x0{1};
  EXPECT_THROW_MSG(robustness(one, x0, p), Error,
                   "lower has 2 values, expected 1 or 1 (one per feature)");
}

TEST(Counting, BadLabelsRegionsSamplesAndTestSets) {
  const Spec g = graph_spec(4);
  EXPECT_THROW_MSG(run(random_model(ModelKind::tree, g.domain, 3, 1), g, "Reflexive", "auto"),
                   Error,
                   "--property Reflexive makes a binary ground truth (label 1 = Reflexive), but "
                   "the model has 3 classes");
  const Spec t = parse_spec("input a : int[0, 3];\ntruth 0 = a > 1;\ntruth 2 = a < 1;\n", "t.spec");
  EXPECT_THROW_MSG(run(random_model(ModelKind::tree, t.domain, 3, 1), t, "", "auto"), Error,
                   "t.spec: no truth for label(s) 1 (the model has 3 classes)");
  const Spec r = parse_spec("input a : int[0, 3];\nregion R = ball([1], 1) label 5;\n", "r.spec");
  EXPECT_THROW_MSG(run(constant_model(1, 1), r, "", "auto"), Error,
                   "r.spec: region R keeps label 5, but the model has 2 classes");
  const Spec e = parse_spec(
      "input t : real[0, 1] step 0.5;\nregion R = ball([0.2], 0.1) label 1;\n", "e.spec");
  EXPECT_THROW_MSG(run(constant_model(1, 1), e, "", "auto"), Error,
                   "the region around t = 0.2 with radius 0.1 holds no grid point");

  Model net;
  net.kind = ModelKind::network;
  net.n_features = 1;
  net.n_outputs = 2;
  net.classes = {"0", "1"};
  net.layers.push_back({1, 2, {1.0, -1.0}, {0.0, 0.0}, Activation::identity});
  const Spec s = parse_spec("input a : int[0, 3];\ntruth 1 = a > 1;\n", "s.spec");
  EXPECT_THROW_MSG(run(net, s, "", "structural"), Error,
                   "structural counting covers trees and tree ensembles; count networks with "
                   "method enumerate, exact-cnf or approx");
  EXPECT_EQ(run(net, s, "", "auto").labels[1].tp, mpz_class(0));  // label 0 wherever a > 0

  // These fail before the exact count.
  CountParams p;
  p.samples = {100, 0};
  EXPECT_THROW_MSG(count(constant_model(1, 1), s, p), Error, "sample sizes must be >= 1, found 0");
  p.samples = {};
  p.test_x = {1, 2, 3};
  p.test_y = {0, 1};
  EXPECT_THROW_MSG(count(constant_model(1, 1), s, p), Error,
                   "the test set has 3 values for 2 labels, expected 2 (1 features per row)");
  p.test_x = {1, 2};
  p.test_y = {0, 5};
  EXPECT_THROW_MSG(count(constant_model(1, 1), s, p), Error,
                   "test label 5 at row 1 is out of range [0, 2)");

  const Model one = constant_model(1, 0);
  const std::vector<double> x{1};
  RobustnessParams q;
  q.lower = {0};
  q.upper = {3};
  q.step = 0;
  EXPECT_THROW_MSG(robustness(one, x, q), Error, "step must be a finite number > 0, found 0");
  q.step = 1;
  q.samples = {0};
  EXPECT_THROW_MSG(robustness(one, x, q), Error, "sample sizes must be >= 1, found 0");
  q.samples = {};
  q.epsilon = -1;
  EXPECT_THROW_MSG(robustness(one, x, q), Error, "epsilon must be >= 0, found -1");
  q.epsilon = 1;
  q.label = 2;
  EXPECT_THROW_MSG(robustness(one, x, q), Error, "label 2 is out of range [0, 2)");
  q.label = 0;
  q.lower = {3};
  q.upper = {0};
  EXPECT_THROW_MSG(robustness(one, x, q), Error, "feature 0: upper bound 0 is below lower bound 3");
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A time limit whose nanoseconds leave the clock's 64 bits (1e10 s) used to become a deadline in
// the past: exact counts stopped at once with bounds [0, |D|]. Refused, naming the maximum.
TEST(Counting, TimeLimitsMustFitTheClock) {
  const Spec s = parse_spec("input a : int[0, 3];\ntruth 1 = a > 1;\n", "s.spec");
  CountParams p;
  p.time_limit = 1e10;
  const std::string refused =
      "time_limit: expected seconds in [0, 1000000000] (0 = no limit; larger values overflow "
      "the clock), found ";
  EXPECT_THROW_MSG(count(constant_model(1, 1), s, p), Error, refused + "10000000000");
  p.time_limit = -1;
  EXPECT_THROW_MSG(count(constant_model(1, 1), s, p), Error, refused + "-1");
  p.time_limit = std::nan("");
  EXPECT_THROW_MSG(count(constant_model(1, 1), s, p), Error, refused + "nan");
  p.time_limit = kMaxTimeLimit;  // the largest accepted
  EXPECT_EQ(count(constant_model(1, 1), s, p).labels[1].tp, mpz_class(2));
  EXPECT_THROW_MSG(check_time_limit("--time-limit", 2e9), Error,
                   "--time-limit: expected seconds in [0, 1000000000] (0 = no limit; larger "
                   "values overflow the clock), found 2000000000");
}

// Test points outside the domain (5 for a bool) were tallied silently beside counts that never
// include them.
TEST(Counting, TestPointsMustLieInTheDomain) {
  const Spec s = parse_spec(
      "input b : bool;\ninput a : int[0, 3];\ninput t : real[0, 1] step 0.25;\n"
      "truth 1 = a > 1;\n",
      "s.spec");
  const Model m = constant_model(3, 1);
  CountParams p;
  p.test_y = {0, 1};
  auto refused = [&](std::vector<double> x) {
    p.test_x = std::move(x);
    try {
      count(m, s, p);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(refused({0, 1, 0.25, 5, 3, 1}),
            "test set row 2 (index 1), feature 0 (b): 5 is not a point of its domain bool (0 or "
            "1); the exact counts cover the domain only");
  EXPECT_EQ(refused({1, 4, 0.25, 0, 3, 1}),
            "test set row 1 (index 0), feature 1 (a): 4 is not a point of its domain int[0, 3]; "
            "the exact counts cover the domain only");
  EXPECT_EQ(refused({1, 2.5, 0.25, 0, 3, 1}),
            "test set row 1 (index 0), feature 1 (a): 2.5 is not a point of its domain int[0, "
            "3]; the exact counts cover the domain only");
  EXPECT_EQ(refused({1, 2, 0.3, 0, 3, 1}),
            "test set row 1 (index 0), feature 2 (t): 0.3 is not a point of its domain real[0, "
            "1] step 0.25; the exact counts cover the domain only");
  EXPECT_EQ(refused({1, 2, std::nan(""), 0, 3, 1}),
            "test set row 1 (index 0), feature 2 (t): nan is not a point of its domain real[0, "
            "1] step 0.25; the exact counts cover the domain only");
  EXPECT_EQ(refused({1, 2, 0.75, 0, 3, 1}), "(accepted)");
  // float32 copies of grid values are points of the grid.
  const Spec tenths = parse_spec("input t : real[0, 1] step 0.1;\ntruth 1 = t > 0.5;\n", "t.spec");
  p.test_x = {static_cast<float>(0.3), static_cast<float>(0.7)};
  EXPECT_NO_THROW(count(constant_model(1, 1), tenths, p));
}

// A step so fine that x +- step rounds to x gave a region of total 1; such grids are refused,
// and so are grids of more than 9e15 points per feature.
TEST(Counting, RobustnessGridsMustBeResolvable) {
  const Model one = constant_model(1, 0);
  RobustnessParams q;
  q.lower = {0};
  q.upper = {16};
  q.step = 1e-300;
  const std::vector<double> x{8};
  EXPECT_THROW_MSG(robustness(one, x, q), Error,
                   "feature 0: the grid [0, 16] in steps of 1e-300 has 1.6e+301 points, more than "
                   "9e+15");
  q.lower = {1e10};
  q.upper = {1e10 + 0.001};
  q.step = 1e-9;
  const std::vector<double> far{1e10};
  try {
    robustness(one, far, q);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("feature 0: the grid step 1e-09 is finer than doubles "
                                         "resolve near 10000000000.001"),
              std::string::npos)
        << e.what();
  }
  // A fine step where doubles resolve it counts exactly: 2001 points around 0.
  q.lower = {-1};
  q.upper = {1};
  q.step = 1e-3;
  q.epsilon = 1;
  const std::vector<double> zero{0};
  EXPECT_EQ(robustness(one, zero, q).total, mpz_class(2001));
  // The spec's real grids follow the same rule, located.
  EXPECT_THROW_MSG(parse_spec("input t : real[0, 16] step 1e-300;", "g.spec"), Error,
                   "g.spec:1:28: [0, 16] in steps of 1e-300 has 1.6e+301 points, more than 9e+15");
}

// A huge uniform sample stops at the time limit with the points drawn so far (it used to run on
// for hours), says so, and its intervals are those of the points drawn.
TEST(Counting, HugeSamplesStopAtTheTimeLimit) {
  const Spec s = graph_spec(4);
  const Model m = random_model(ModelKind::tree, s.domain, 2, 9);
  CountParams p;
  p.property = "Antisymmetric";
  p.samples = {1'000'000'000'000};
  p.time_limit = 0.3;
  std::vector<std::string> warnings;
  ScopedWarningHandler capture([&](const std::string& w) { warnings.push_back(w); });
  const auto start = std::chrono::steady_clock::now();
  const CountResult r = count(m, s, p);
  EXPECT_LT(seconds_since(start), 5.0);
  ASSERT_EQ(r.samples.size(), 1u);
  const SampleView& v = r.samples[0];
  EXPECT_EQ(v.requested, 1'000'000'000'000u);
  EXPECT_EQ(v.stopped_by, "time limit");
  EXPECT_GT(v.n, 0u);
  EXPECT_LT(v.n, v.requested);
  const auto& l = v.labels[1];
  EXPECT_EQ(l.tp + l.fp + l.tn + l.fn, v.n);
  EXPECT_EQ(v.accuracy.n, v.n);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], fmt::format("uniform sample 1 of 1 stopped after {} of 1000000000000 "
                                     "points (the time limit of 0.3 s); its estimates and "
                                     "intervals use the points drawn",
                                     v.n));
  // The same sample without a limit: the first points are the same (one seeded stream).
  CountParams q = p;
  q.samples = {v.n};
  q.time_limit = 0;
  EXPECT_EQ(count(m, s, q).samples[0].labels[1].tp, l.tp);
  // Robustness samples too.
  RobustnessParams rp;
  rp.lower = {0};
  rp.upper = {1};
  rp.samples = {1'000'000'000'000};
  rp.time_limit = 0.2;
  warnings.clear();
  const auto rr = robustness(constant_model(16, 1), std::vector<double>(16, 0.0), rp);
  ASSERT_EQ(rr.samples.size(), 1u);
  EXPECT_GT(rr.samples[0].n, 0u);
  EXPECT_LT(rr.samples[0].n, 1'000'000'000'000u);
  ASSERT_EQ(warnings.size(), 1u);
}

// An interrupt (Ctrl-C) stops sampling with the points drawn; an exact count, which has no
// partial answer, throws Interrupted.
TEST(Counting, InterruptsStopCleanly) {
  const Spec s = graph_spec(4);
  const Model m = random_model(ModelKind::tree, s.domain, 2, 9);
  CountParams p;
  p.property = "Antisymmetric";
  p.samples = {1'000'000'000'000, 100};
  ScopedWarningHandler quiet(WarningHandler{});
  {
    int polls = 0;
    const InterruptScope scope([&] { return ++polls == 3; });  // about 150 ms in
    const auto start = std::chrono::steady_clock::now();
    const CountResult r = count(m, s, p);
    EXPECT_LT(seconds_since(start), 5.0);
    EXPECT_EQ(r.samples[0].stopped_by, "interrupted");
    EXPECT_GT(r.samples[0].n, 0u);
    EXPECT_EQ(r.samples[1].stopped_by, "interrupted");  // stops at once
    EXPECT_EQ(r.samples[1].n, 0u);
    EXPECT_TRUE(std::isnan(r.samples[1].accuracy.value));
    EXPECT_TRUE(interrupt_requested());
  }
  EXPECT_FALSE(interrupt_requested());  // the scope's end clears it
  const Spec big = parse_spec("input a[32] : bool;\ntruth 1 = a[0];\n", "big.spec");
  CountParams e;
  e.method = CountMethod::enumerate;
  const InterruptScope scope([] { return true; });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(count(constant_model(32, 1), big, e), Interrupted);
  EXPECT_LT(seconds_since(start), 5.0);
}

}  // namespace
}  // namespace assay::count
