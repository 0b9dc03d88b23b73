// count/domain_split: counting unsafe inputs of networks by splitting the domain — integer
// counts equal enumeration, certified intervals agree with sampling, proofs of properties that
// hold, determinism at any thread count, spec counts, bad requests and an ACAS Xu slice.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/warning.hpp"
#include "assay/count/counting.hpp"
#include "assay/count/domain_split.hpp"
#include "assay/count/onnx.hpp"
#include "assay/count/spec.hpp"
#include "assay/count/vnnlib.hpp"
#include "random_net.hpp"

namespace assay::count {
namespace {

// Brute force over the integer box: the number of unsafe points.
std::uint64_t brute_unsafe(const Model& m, const VnnProperty& p) {
  std::uint64_t n = 0;
  for (const auto& r : p.regions) {
    for (double a = r.lo[0]; a <= r.hi[0]; ++a) {
      for (double b = r.lo[1]; b <= r.hi[1]; ++b) {
        for (double c = r.lo[2]; c <= r.hi[2]; ++c) {
          const std::vector<double> x = {a, b, c};
          const auto y = predict_scores(m, x);
          n += unsafe_at(r, x.data(), y.data());
        }
      }
    }
  }
  return n;
}

TEST(DomainSplit, IntegerCountsEqualEnumeration) {
  const char* text = R"(
    (declare-const X_0 Int) (declare-const X_1 Int) (declare-const X_2 Int)
    (declare-const Y_0 Real) (declare-const Y_1 Real) (declare-const Y_2 Real)
    (assert (>= X_0 -20)) (assert (<= X_0 20)) (assert (>= X_1 -15)) (assert (<= X_1 25))
    (assert (or (and (>= X_2 0) (<= X_2 9)) (and (>= X_2 12) (<= X_2 30))))
    (assert (or (and (>= Y_1 Y_0) (>= Y_1 Y_2)) (<= Y_2 -1.5))))";
  const VnnProperty p = parse_vnnlib(text, "int.vnnlib");
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Model m = random_net({3, 10, 10, 3}, seed, 0.1);
    SplitParams sp;
    sp.enumerate_limit = 64;
    sp.samples = 500;
    const SplitResult r = count_unsafe(m, p, sp);
    EXPECT_TRUE(r.finished);
    EXPECT_EQ(r.domain, "grid");
    EXPECT_EQ(r.total, mpz_class(41 * 41 * 29));
    EXPECT_EQ(r.unsafe_count_lower, r.unsafe_count_upper);
    EXPECT_EQ(r.unsafe_count_lower.get_ui(), brute_unsafe(m, p)) << "seed " << seed;
    EXPECT_GT(r.safe_boxes + r.unsafe_boxes, 0u);  // not everything was enumerated
    EXPECT_EQ(r.decision, r.unsafe_count_lower > 0 ? "violated" : "holds");
  }
}

const char* kContinuous = R"(
  (declare-const X_0 Real) (declare-const X_1 Real)
  (declare-const Y_0 Real) (declare-const Y_1 Real)
  (assert (>= X_0 -1)) (assert (<= X_0 1)) (assert (>= X_1 -1)) (assert (<= X_1 1))
  (assert (<= Y_0 Y_1)))";

TEST(DomainSplit, CertifiedIntervalAgreesWithSampling) {
  const VnnProperty p = parse_vnnlib(kContinuous, "c.vnnlib");
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Model m = random_net({2, 16, 16, 2}, seed);
    SplitParams sp;
    sp.max_boxes = 3000;
    sp.samples = 20000;
    sp.seed = seed;
    const SplitResult r = count_unsafe(m, p, sp);
    EXPECT_LE(r.unsafe_lower, r.unsafe_upper);
    EXPECT_LT(r.unsafe_upper - r.unsafe_lower, 0.2);
    // The sample's 99.9% interval meets the certified interval.
    EXPECT_LE(r.sample.exact_low, r.unsafe_upper);
    EXPECT_GE(r.sample.exact_high, r.unsafe_lower);
    // An independent sample too.
    Rng rng(seed + 7);
    std::uint64_t k = 0;
    const std::uint64_t n = 20000;
    for (std::uint64_t s = 0; s < n; ++s) {
      const std::vector<double> x = {2 * rng.uniform() - 1, 2 * rng.uniform() - 1};
      const auto y = predict_scores(m, x);
      k += y[0] <= y[1];
    }
    const Proportion q = proportion(k, n, 0.999);
    EXPECT_LE(q.exact_low, r.unsafe_upper);
    EXPECT_GE(q.exact_high, r.unsafe_lower);
    if (r.unsafe_lower > 0) {
      EXPECT_EQ(r.decision, "violated");
    }
    ASSERT_FALSE(r.trace.empty());
    EXPECT_EQ(r.trace.back().lower, r.unsafe_lower);
  }
}

TEST(DomainSplit, ProvesAPropertyThatHolds) {
  const Model m = random_net({2, 8, 2}, 3);
  const VnnProperty p = parse_vnnlib(
      "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
      "(declare-const Y_1 Real)(assert (>= X_0 0))(assert (<= X_0 1))(assert (>= X_1 0))"
      "(assert (<= X_1 1))(assert (>= Y_0 1000))",
      "h.vnnlib");
  const SplitResult r = count_unsafe(m, p);
  EXPECT_EQ(r.decision, "holds");
  EXPECT_TRUE(r.finished);
  EXPECT_EQ(r.unsafe_lower, 0.0);
  EXPECT_EQ(r.unsafe_upper, 0.0);
  EXPECT_EQ(r.sample.k, 0u);
  EXPECT_FALSE(r.counterexample);
}

TEST(DomainSplit, DeterministicAtAnyThreadCount) {
  const VnnProperty p = parse_vnnlib(kContinuous, "c.vnnlib");
  const Model m = random_net({2, 16, 16, 2}, 1);
  SplitParams sp;
  sp.max_boxes = 700;
  sp.samples = 3000;
  sp.threads = 1;
  const SplitResult a = count_unsafe(m, p, sp);
  sp.threads = 2;
  const SplitResult b = count_unsafe(m, p, sp);
  ASSERT_EQ(a.stopped_by, "max boxes") << a.decision;  // the unsafe set has a boundary
  EXPECT_EQ(a.boxes, 700u);
  EXPECT_EQ(a.boxes, b.boxes);
  EXPECT_EQ(a.unsafe_lower, b.unsafe_lower);
  EXPECT_EQ(a.unsafe_upper, b.unsafe_upper);
  EXPECT_EQ(a.sample.k, b.sample.k);
  EXPECT_EQ(a.counterexample.has_value(), b.counterexample.has_value());
  if (a.counterexample) {
    EXPECT_EQ(*a.counterexample, *b.counterexample);
  }
}

TEST(DomainSplit, BadRequests) {
  const VnnProperty p = parse_vnnlib(kContinuous, "c.vnnlib");
  auto err = [&](const Model& m, SplitParams sp = {}) {
    try {
      count_unsafe(m, p, sp);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(err(random_net({3, 4, 2}, 1)),
            "the network has 3 inputs but c.vnnlib declares 2 (X_0..X_1)");
  EXPECT_EQ(err(random_net({2, 4, 3}, 1)),
            "the network has 3 outputs but c.vnnlib declares 2 (Y_0..Y_1)");
  SplitParams sp;
  sp.time_limit = -1;
  EXPECT_EQ(err(random_net({2, 4, 2}, 1), sp),
            "time_limit: expected seconds in [0, 1000000000] (0 = no limit; larger values "
            "overflow the clock), found -1");
  sp.time_limit = 1e10;  // its nanoseconds overflow the clock
  EXPECT_EQ(err(random_net({2, 4, 2}, 1), sp),
            "time_limit: expected seconds in [0, 1000000000] (0 = no limit; larger values "
            "overflow the clock), found 10000000000");
}

// Without a time limit, a property whose unsafe set has a boundary inside the box never
// finishes: the open boxes used to grow until bad_alloc. The run now stops at the memory budget
// with its certified interval and a message naming the option to raise.
TEST(DomainSplit, StopsAtTheMemoryBudget) {
  const VnnProperty p = parse_vnnlib(kContinuous, "c.vnnlib");
  const Model m = random_net({2, 16, 16, 2}, 1);
  SplitParams sp;
  sp.max_memory = 100'000;  // a few hundred open boxes
  sp.samples = 20000;
  std::vector<std::string> warnings;
  ScopedWarningHandler capture([&](const std::string& w) { warnings.push_back(w); });
  const SplitResult r = count_unsafe(m, p, sp);
  EXPECT_EQ(r.stopped_by, "memory budget");
  EXPECT_FALSE(r.finished);
  EXPECT_EQ(r.memory_budget, 100'000u);
  EXPECT_GT(r.open_boxes, 100u);
  EXPECT_LT(r.open_boxes, 1000u);
  EXPECT_LT(r.unsafe_lower, r.unsafe_upper);
  const std::string message = fmt::format(
      "stopped when the {} undecided boxes reached the memory budget of 100 kB (as asked); the "
      "interval so far is certified (raise --max-memory / max_memory, in MB, to go on; "
      "--time-limit bounds the run by time instead)",
      r.open_boxes);
  EXPECT_EQ(r.stop_message, message);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], message);
  // Certified: the interval holds the share that a much longer run pins down.
  SplitParams longer;
  longer.max_boxes = 20000;
  longer.samples = 0;
  const SplitResult fine = count_unsafe(m, p, longer);
  EXPECT_LE(r.unsafe_lower, fine.unsafe_lower);
  EXPECT_GE(r.unsafe_upper, fine.unsafe_upper);
  // The same budget stops method split on a .spec grid with certified bounds.
  const Spec spec = parse_spec("input x[16] : int[0, 7];\ntruth 1 = x[0] + x[1] > 7;\n", "g.spec");
  CountParams cp;
  cp.method = CountMethod::split;
  cp.max_memory = 20'000;
  warnings.clear();
  const CountResult c = count(random_net({16, 8, 2}, 3), spec, cp);
  EXPECT_TRUE(c.labels[1].guarantee.bounded);
  EXPECT_NE(c.labels[1].guarantee.note.find("stopped by the memory budget"), std::string::npos);
  EXPECT_TRUE(std::isnan(c.labels[1].accuracy));
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(warnings[0].rfind("label 0: stopped when the ", 0), 0u) << warnings[0];
}

// An interrupt stops splitting between waves with the certified interval so far.
TEST(DomainSplit, InterruptsStopWithTheIntervalSoFar) {
  const VnnProperty p = parse_vnnlib(kContinuous, "c.vnnlib");
  const InterruptScope scope([] { return true; });  // Ctrl-C at the first checkpoint (50 ms)
  SplitParams sp;
  sp.samples = 1'000'000'000'000;  // would take hours: stops too
  const auto start = std::chrono::steady_clock::now();
  ScopedWarningHandler quiet(WarningHandler{});
  const SplitResult r = count_unsafe(random_net({2, 16, 16, 2}, 1), p, sp);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  EXPECT_EQ(r.sample_stopped_by, "interrupted");
  EXPECT_LT(r.sample.n, r.sample_requested);
  EXPECT_EQ(r.stopped_by, "interrupted");
  EXPECT_EQ(r.stop_message.rfind("interrupted with ", 0), 0u) << r.stop_message;
  EXPECT_LE(r.unsafe_lower, r.unsafe_upper);
}

// Method "split" of count(): exact counts equal enumeration on a boolean domain.
TEST(DomainSplit, SpecCountsEqualEnumeration) {
  const Spec spec = parse_spec(R"(
    input x[10] : bool;
    input t : int[0, 5];
    pred Many = (sum i in 0..9 : x[i]) >= 5;
    truth 1 = Many;
    safety Small = t <= 1 => label == 0;
    region Near = ball([1,0,1,0,1,0,1,0,1,0, 2], 1) label 1;
  )",
                               "s.spec");
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    const Model m = random_net({11, 12, 2}, seed);
    CountParams ep;
    ep.method = CountMethod::enumerate;
    const CountResult e = count(m, spec, ep);
    CountParams sp;
    sp.method = CountMethod::split;
    const CountResult s = count(m, spec, sp);
    ASSERT_EQ(s.labels.size(), e.labels.size());
    for (std::size_t l = 0; l < e.labels.size(); ++l) {
      EXPECT_EQ(s.labels[l].tp, e.labels[l].tp);
      EXPECT_EQ(s.labels[l].fp, e.labels[l].fp);
      EXPECT_EQ(s.labels[l].tn, e.labels[l].tn);
      EXPECT_EQ(s.labels[l].fn, e.labels[l].fn);
      EXPECT_TRUE(s.labels[l].guarantee.exact);
      EXPECT_EQ(s.labels[l].guarantee.method, "split");
    }
    EXPECT_EQ(s.safety[0].satisfied, e.safety[0].satisfied);
    EXPECT_EQ(s.safety[0].violated, e.safety[0].violated);
    EXPECT_EQ(s.regions[0].count, e.regions[0].count);
    EXPECT_EQ(s.regions[0].total, e.regions[0].total);
    // A budget gives certified bounds that contain the exact counts.
    sp.max_boxes = 1;  // the root only: 6144 points are more than one enumeration
    const CountResult b = count(m, spec, sp);
    const auto& l = b.labels[1];
    EXPECT_TRUE(l.guarantee.bounded);
    EXPECT_LE(l.tp_bounds.lower, e.labels[1].tp);
    EXPECT_GE(l.tp_bounds.upper, e.labels[1].tp);
    EXPECT_TRUE(std::isnan(l.accuracy));
  }
}

TEST(DomainSplit, SpecMethodChecks) {
  const Spec spec = parse_spec("input x[2] : bool; truth 1 = x[0] and score[1] > 0;", "s.spec");
  CountParams sp;
  sp.method = CountMethod::split;
  try {
    count(random_net({2, 4, 2}, 1), spec, sp);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "method split reads the predicted label only; the truth of label 1 uses "
                 "score[k] or argmax (use method enumerate)");
  }
}

std::filesystem::path acasxu_dir() {
  if (const char* env = std::getenv("ASSAY_ACASXU_DATA")) return env;
  return std::filesystem::path(ASSAY_SOURCE_DIR) / ".." / "shared" / "data" / "acasxu";
}

// A small slice of ACAS Xu (the full 186 instances are bench/bench_count_networks.py).
TEST(DomainSplit, AcasXuSlice) {
  const auto dir = acasxu_dir();
  if (!std::filesystem::exists(dir / "prop_1.vnnlib")) {
    GTEST_SKIP() << "ACAS Xu data not found at " << dir << " (set ASSAY_ACASXU_DATA)";
  }
  auto net = [&](const char* id) {
    return load_onnx((dir / (std::string("ACASXU_run2a_") + id + "_batch_2000.onnx")).string());
  };
  SplitParams sp;
  sp.stop_when_decided = true;
  sp.time_limit = 30;
  sp.samples = 2000;
  // Properties 3 and 4 hold on network 2_9 (VNN-COMP: unsat; about 0.3 s each). Property 4
  // fixes input X_2 (a box of zero width in it).
  for (const char* prop : {"prop_3.vnnlib", "prop_4.vnnlib"}) {
    const SplitResult holds = count_unsafe(net("2_9"), load_vnnlib((dir / prop).string()), sp);
    EXPECT_EQ(holds.decision, "holds") << prop;
    EXPECT_EQ(holds.unsafe_upper, 0.0) << prop;
    EXPECT_EQ(holds.sample.k, 0u) << prop;
  }
  // Property 2 is violated on network 2_1 (VNN-COMP: sat).
  const SplitResult bad =
      count_unsafe(net("2_1"), load_vnnlib((dir / "prop_2.vnnlib").string()), sp);
  EXPECT_EQ(bad.decision, "violated");
  ASSERT_TRUE(bad.counterexample);
  const auto y = predict_scores(net("2_1"), *bad.counterexample);
  for (int j = 1; j < 5; ++j) EXPECT_GE(y[0], y[j]);  // COC is the largest score
}

// ACAS Xu property 2 on network 2_1 without a time limit: its unsafe set's boundary keeps the
// frontier growing (until bad_alloc before). A 0.5 MB budget (1488 open boxes) stops it within
// seconds with a certified interval around the sampled share.
TEST(DomainSplit, AcasXuBoundaryStopsAtTheMemoryBudget) {
  const auto dir = acasxu_dir();
  if (!std::filesystem::exists(dir / "prop_2.vnnlib")) {
    GTEST_SKIP() << "ACAS Xu data not found at " << dir << " (set ASSAY_ACASXU_DATA)";
  }
  const Model m = load_onnx((dir / "ACASXU_run2a_2_1_batch_2000.onnx").string());
  SplitParams sp;
  sp.max_memory = 500'000;
  sp.samples = 20000;
  ScopedWarningHandler quiet(WarningHandler{});
  const auto start = std::chrono::steady_clock::now();
  const SplitResult r = count_unsafe(m, load_vnnlib((dir / "prop_2.vnnlib").string()), sp);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20.0);
  EXPECT_EQ(r.stopped_by, "memory budget");
  EXPECT_EQ(r.decision, "violated");
  EXPECT_LE(r.unsafe_lower, r.sample.exact_high);
  EXPECT_GE(r.unsafe_upper, r.sample.exact_low);
  EXPECT_LT(r.unsafe_upper - r.unsafe_lower, 0.05);
}

TEST(DomainSplit, OptionsSharedWithCountAreTranslatedInOnePlace) {
  CountParams c;
  c.time_limit = 5;
  c.max_boxes = 100;
  c.max_memory = 1'000'000;
  c.seed = 9;
  c.threads = 2;
  c.confidence = 0.9;
  SplitParams p = split_params(c);
  EXPECT_EQ(p.time_limit, 5);
  EXPECT_EQ(p.max_boxes, 100U);
  EXPECT_EQ(p.max_memory, 1'000'000U);
  EXPECT_EQ(p.seed, 9U);
  EXPECT_EQ(p.threads, 2);
  EXPECT_EQ(p.samples, SplitParams{}.samples);        // no sample size given: splitting's default
  EXPECT_EQ(p.confidence, SplitParams{}.confidence);  // 0.95 is count()'s default, not split's
  EXPECT_EQ(p.enumerate_limit, 4096U);
  c.samples = {300};
  c.enumeration_limit = 100;
  p = split_params(c);
  EXPECT_EQ(p.samples, 300U);
  EXPECT_EQ(p.enumerate_limit, 100U);
}

TEST(DomainSplit, BoundMethodsHaveOneMessage) {
  EXPECT_EQ(parse_bound_method("linear", "--bounds"), BoundMethod::linear);
  EXPECT_EQ(parse_bound_method("interval", "--bounds"), BoundMethod::interval);
  try {
    parse_bound_method("crown", "--bounds");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--bounds must be linear or interval, found \"crown\"");
  }
}

}  // namespace
}  // namespace assay::count
