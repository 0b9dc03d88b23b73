// shift/segmentation_ensemble: voxel-wise ensemble uncertainty (Shifts' uncertainty.py on
// [p, 1 - p]): mean, entropy of the expected, expected entropy, mutual information, EPKL and
// reverse mutual information against a std::log reference, map selection, and input checks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/shift/segmentation.hpp"
#include "test_util.hpp"

namespace assay::shift {
namespace {

TEST(SegmentationEnsemble, EnsembleMapsOfAgreeingAndOpposedMembers) {
  const Grid3 g{2, 1, 1};
  // Voxel 0: both members 0.3 (no knowledge uncertainty); voxel 1: members 0 and 1.
  const std::vector<double> members = {0.3, 0.0, 0.3, 1.0};
  const auto e = ensemble_maps(members, 2, g);
  const double h = -(0.3 * std::log(0.3 + 1e-10) + 0.7 * std::log(0.7 + 1e-10));
  EXPECT_NEAR(e.mean[0], 0.3, 1e-15);
  EXPECT_NEAR(e.entropy_of_expected[0], h, 1e-14);
  EXPECT_NEAR(e.mutual_information[0], 0, 1e-14);
  EXPECT_NEAR(e.reverse_mutual_information[0], 0, 1e-14);
  EXPECT_NEAR(e.mean[1], 0.5, 1e-15);
  EXPECT_NEAR(e.entropy_of_expected[1], std::log(2.0), 1e-9);
  EXPECT_NEAR(e.expected_entropy[1], 0, 1e-9);
  EXPECT_NEAR(e.epkl[1], -0.5 * std::log(1e-10), 1e-6);
  EnsembleMapSelection only;
  only = {.mean = true,
          .entropy_of_expected = false,
          .expected_entropy = false,
          .mutual_information = false,
          .epkl = false,
          .reverse_mutual_information = true};
  const auto some = ensemble_maps(members, 2, g, 1e-10, only);
  EXPECT_EQ(some.mean, e.mean);
  EXPECT_EQ(some.reverse_mutual_information, e.reverse_mutual_information);
  EXPECT_TRUE(some.epkl.empty() && some.entropy_of_expected.empty());
  EXPECT_THROW_MSG(ensemble_maps(std::vector<double>{0.1, 2.0}, 1, g), Error,
                   "members: expected a probability in [0, 1] for member 0 at voxel (1, 0, 0), "
                   "found 2");
  EXPECT_THROW_MSG(ensemble_maps(std::vector<double>{0.1, 0.2, 0.3}, 2, g), Error,
                   "members: expected 2 members x 2 voxels (2 x 1 x 1) = 4 values, found 3");
}

// The six maps at one voxel, straight from the definitions with std::log.
struct Reference {
  double mean, eoe, exe, mi, epkl, rmi;
};
Reference reference(const std::vector<double>& p, double eps) {
  const double m = static_cast<double>(p.size());
  double pbar = 0, exe = 0, mean_log_p = 0, mean_log_q = 0;
  for (const double pm : p) {
    const double qm = 1 - pm;
    pbar += pm / m;
    exe += -(pm * std::log(pm + eps) + qm * std::log(qm + eps)) / m;
    mean_log_p += std::log(pm + eps) / m;
    mean_log_q += std::log(qm + eps) / m;
  }
  const double qbar = 1 - pbar;
  const double eoe = -(pbar * std::log(pbar + eps) + qbar * std::log(qbar + eps));
  const double epkl = -(pbar * mean_log_p + qbar * mean_log_q) - exe;
  return {pbar, eoe, exe, eoe - exe, epkl, epkl - (eoe - exe)};
}

TEST(SegmentationEnsemble, EveryMapEqualsItsDefinitionAcrossBlocks) {
  // 1200 voxels: more than one block of 1024; three members.
  const Grid3 g{40, 30, 1};
  const std::size_t n = g.size(), members = 3;
  std::mt19937_64 gen(8);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> p(members * n);
  for (auto& x : p) x = unit(gen);
  p[5] = 0.0;
  p[n + 5] = 1.0;  // exact 0 and 1 are allowed
  const auto e = ensemble_maps(p, members, g);
  for (std::size_t v = 0; v < n; ++v) {
    const Reference r = reference({p[v], p[n + v], p[2 * n + v]}, 1e-10);
    ASSERT_NEAR(e.mean[v], r.mean, 1e-15) << v;
    ASSERT_NEAR(e.entropy_of_expected[v], r.eoe, 1e-12) << v;
    ASSERT_NEAR(e.expected_entropy[v], r.exe, 1e-12) << v;
    ASSERT_NEAR(e.mutual_information[v], r.mi, 1e-12) << v;
    ASSERT_NEAR(e.epkl[v], r.epkl, 1e-12) << v;
    ASSERT_NEAR(e.reverse_mutual_information[v], r.rmi, 1e-12) << v;
  }
}

TEST(SegmentationEnsemble, OneMemberHasNoKnowledgeUncertainty) {
  const Grid3 g{3, 1, 1};
  const std::vector<double> p = {0.0, 0.5, 0.9};
  const auto e = ensemble_maps(p, 1, g);
  for (std::size_t v = 0; v < 3; ++v) {
    EXPECT_EQ(e.mean[v], p[v]);
    EXPECT_NEAR(e.mutual_information[v], 0.0, 1e-15);
    EXPECT_NEAR(e.epkl[v], 0.0, 1e-15);
    EXPECT_NEAR(e.entropy_of_expected[v], e.expected_entropy[v], 1e-15);
  }
  EXPECT_NEAR(e.entropy_of_expected[1], std::log(2.0), 1e-9);
}

TEST(SegmentationEnsemble, SelectionFillsOnlyTheChosenMaps) {
  const Grid3 g{2, 1, 1};
  const std::vector<double> p = {0.2, 0.7, 0.6, 0.1};
  EnsembleMapSelection which{};
  which.mean = false;
  which.entropy_of_expected = false;
  which.expected_entropy = false;
  which.reverse_mutual_information = false;
  const auto some = ensemble_maps(p, 2, g, 1e-10, which);
  const auto all = ensemble_maps(p, 2, g);
  EXPECT_TRUE(some.mean.empty());
  EXPECT_TRUE(some.entropy_of_expected.empty());
  EXPECT_TRUE(some.expected_entropy.empty());
  EXPECT_TRUE(some.reverse_mutual_information.empty());
  EXPECT_EQ(some.mutual_information, all.mutual_information);
  EXPECT_EQ(some.epkl, all.epkl);
}

TEST(SegmentationEnsemble, InputChecks) {
  const Grid3 g{2, 1, 1};
  const std::vector<double> p = {0.2, 0.7};
  EXPECT_THROW_MSG(ensemble_maps(p, 0, g), Error,
                   "members: expected at least 1 member map, found 0");
  EXPECT_THROW_MSG(ensemble_maps(p, 1, g, 0.0), Error,
                   "epsilon: expected a value in (0, 1), found 0");
  EXPECT_THROW_MSG(ensemble_maps(p, 1, g, 1.0), Error,
                   "epsilon: expected a value in (0, 1), found 1");
  EXPECT_THROW_MSG(ensemble_maps(std::vector<double>{0.2, -0.1, 0.5, 0.5}, 2, g), Error,
                   "members: expected a probability in [0, 1] for member 0 at voxel (1, 0, 0), "
                   "found -0.1");
  EXPECT_THROW_MSG(ensemble_maps(std::vector<double>{0.2, 0.1, std::nan(""), 0.5}, 2, g), Error,
                   "members: expected a probability in [0, 1] for member 1 at voxel (0, 0, 0), "
                   "found nan");
}

}  // namespace
}  // namespace assay::shift
