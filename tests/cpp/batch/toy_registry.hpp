// A fresh folder per test holding toy.csv (columns x, s, y; subset column s) and the registry of
// a 2-fold SOAK of it: 2 subsets x 2 folds x 3 train sets = 12 jobs per learner.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "assay/batch/registry.hpp"

namespace assay::batch {

class ToyRegistryTest : public ::testing::Test {
 protected:
  /// The rows of toy.csv after its header `x,s,y`.
  virtual void write_rows(std::ostream& out) const = 0;
  /// The learners of the experiment (empty: the default ones).
  virtual std::vector<std::string> learners() const { return {}; }

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("assay_batch_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    const std::string data = (dir_ / "toy.csv").string();
    std::ofstream out(data);
    out << "x,s,y\n";
    write_rows(out);
    out.close();
    ExperimentDefinition def;
    def.files = {data};
    def.spec.data.label = "y";
    def.spec.design.subset = "s";
    def.params.splits.folds = 2;
    if (!learners().empty()) def.params.run.learners = learners();
    def.title = "assay soak: toy.csv";
    registry_.emplace(Registry::plan((dir_ / "reg").string(), def, ""));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  std::optional<Registry> registry_;
};

}  // namespace assay::batch
