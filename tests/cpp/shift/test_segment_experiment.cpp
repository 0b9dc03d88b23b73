// shift/segment_experiment: the voxel uncertainty measures by name, matching subjects across
// sources (folders with common affixes, {id} patterns, natural order, missing files named), and
// evaluate_segmentation_files on small NIfTI volumes written here (per-subject DSC, the "all"
// mean ± SD ×100 with ddof 0).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/nifti.hpp"
#include "assay/shift/segment_experiment.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;

namespace assay::shift {
namespace {

// A fresh folder for one test, removed at the end.
class SegmentFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("assay_segment_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "gt");
    fs::create_directories(dir_ / "pred");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes a 6x1x1 volume with an identity affine.
  std::string write(const std::string& name, std::vector<double> data) {
    Volume v;
    v.shape = {6, 1, 1};
    v.data = std::move(data);
    v.affine = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const fs::path path = dir_ / name;
    write_nifti(path.string(), v, NiftiType::float32);
    return path.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST(SegmentExperiment, VoxelMeasuresByName) {
  for (const VoxelMeasure m :
       {VoxelMeasure::automatic, VoxelMeasure::none, VoxelMeasure::entropy_of_expected,
        VoxelMeasure::expected_entropy, VoxelMeasure::mutual_information, VoxelMeasure::epkl,
        VoxelMeasure::reverse_mutual_information}) {
    EXPECT_EQ(parse_voxel_measure(to_string(m)), m) << to_string(m);
  }
  EXPECT_EQ(to_string(VoxelMeasure::automatic), "auto");
  EXPECT_EQ(to_string(VoxelMeasure::epkl), "epkl");
  const std::string expected =
      "voxel uncertainty measure: expected auto, none, entropy_of_expected, expected_entropy, "
      "mutual_information, epkl or reverse_mutual_information, found ";
  EXPECT_THROW_MSG(parse_voxel_measure("file"), Error, expected + "\"file\"");  // not an option
  EXPECT_THROW_MSG(parse_voxel_measure("MI"), Error, expected + "\"MI\"");
}

TEST_F(SegmentFiles, SubjectsMatchByIdInNaturalOrder) {
  const std::vector<double> zero(6, 0.0);
  for (const char* id : {"1", "2", "10"}) {
    write(std::string("gt/sub-") + id + "_gt.nii.gz", zero);
    write(std::string("pred/sub-") + id + "_prob.nii.gz", zero);
  }
  SegmentParams p;
  p.truth = path("gt");                               // a folder: ids from common affixes
  p.pred = {path("pred") + "/sub-{id}_prob.nii.gz"};  // a pattern
  const std::vector<SubjectFiles> s = match_subjects(p);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].id, "1");
  EXPECT_EQ(s[1].id, "2");
  EXPECT_EQ(s[2].id, "10");
  EXPECT_EQ(s[2].truth, path("gt/sub-10_gt.nii.gz"));
  ASSERT_EQ(s[2].pred.size(), 1u);
  EXPECT_EQ(s[2].pred[0], path("pred/sub-10_prob.nii.gz"));
  EXPECT_TRUE(s[0].uncertainty.empty());
  EXPECT_TRUE(s[0].partition.empty());
}

TEST_F(SegmentFiles, MissingSourcesAndFilesAreNamed) {
  SegmentParams p;
  EXPECT_THROW_MSG(match_subjects(p), Error, "expected at least one prediction source (--pred)");
  p.pred = {path("pred")};
  EXPECT_THROW_MSG(match_subjects(p), Error, "expected a truth source (--truth)");
  const std::vector<double> zero(6, 0.0);
  write("gt/a_gt.nii.gz", zero);
  write("gt/b_gt.nii.gz", zero);
  write("pred/a_prob.nii.gz", zero);
  write("pred/c_prob.nii.gz", zero);
  p.truth = path("gt");
  try {
    match_subjects(p);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(
        what.starts_with("--pred " + path("pred") + ": no file for subject(s) b of --truth"))
        << what;
  }
}

TEST_F(SegmentFiles, EvaluationScoresEachSubjectAndSummarises) {
  // Subject 1: TP 1, FP 1, FN 1 -> DSC 0.5. Subject 2: perfect -> DSC 1.
  write("gt/1.nii.gz", {1, 1, 0, 0, 0, 0});
  write("pred/1.nii.gz", {0.9, 0.2, 0.5, 0, 0, 0});
  write("gt/2.nii.gz", {0, 0, 1, 1, 1, 0});
  write("pred/2.nii.gz", {0, 0, 0.4, 0.9, 0.8, 0});
  SegmentParams p;
  p.truth = path("gt");
  p.pred = {path("pred")};
  p.voxel_measure = "none";
  p.scoring.min_lesion_size = 0;
  p.threads = 1;
  const SegmentEvaluation e = evaluate_segmentation_files(p);
  ASSERT_EQ(e.subjects.size(), 2u);
  EXPECT_EQ(e.subjects[0].files.id, "1");
  EXPECT_EQ(e.subjects[0].scores.voxel_tp, 1u);
  EXPECT_EQ(e.subjects[0].scores.voxel_fp, 1u);
  EXPECT_EQ(e.subjects[0].scores.voxel_fn, 1u);
  EXPECT_DOUBLE_EQ(e.subjects[0].scores.dsc, 0.5);
  EXPECT_DOUBLE_EQ(e.subjects[1].scores.dsc, 1.0);
  EXPECT_EQ(e.voxel_uncertainty, "none");
  ASSERT_FALSE(e.sets.empty());
  EXPECT_EQ(e.sets[0].set, "all");
  EXPECT_EQ(e.sets[0].n_subjects, 2u);
  EXPECT_DOUBLE_EQ(e.sets[0].dsc.mean, 75.0);
  EXPECT_DOUBLE_EQ(e.sets[0].dsc.sd, 25.0);                    // ddof 0, as np.std
  EXPECT_TRUE(std::isnan(e.sets[0].ndsc_retention_auc.mean));  // no uncertainty
  const Table t = subject_table(e);
  EXPECT_EQ(t.n_rows(), 2u);
}

}  // namespace
}  // namespace assay::shift
