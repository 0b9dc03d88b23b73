// Batch registries: plan/open, definitions and results round-trip exactly, jobs run anywhere
// give the one-process rows, collect refuses what does not belong, and every bad input names
// what was expected and found.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <unistd.h>

#include "assay/batch/experiment.hpp"
#include "assay/batch/registry.hpp"
#include "assay/core/error.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/warning.hpp"
#include "test_util.hpp"

namespace assay::batch {
namespace {
namespace fs = std::filesystem;

std::string detail_host() {
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  return name;
}

// A fresh folder per test.
class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("assay_registry_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    data_ = (dir_ / "toy.csv").string();
    std::ofstream out(data_);
    out << "x1,x2,region,y\n";
    for (int i = 0; i < 60; ++i) {
      out << (i % 7) * 0.5 << "," << (i * 13 % 11) * 0.25 << "," << (i < 30 ? "east" : "west")
          << "," << ((i % 3 == 0) != (i >= 45) ? "a" : "b") << "\n";
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  ExperimentDefinition definition(std::vector<std::string> learners = {"featureless"}) const {
    ExperimentDefinition def;
    def.files = {data_};
    def.spec.data.label = "y";
    def.spec.design.subset = "region";
    def.params.splits.folds = 3;
    def.params.run.learners = std::move(learners);
    def.title = "assay soak: toy.csv";
    return def;
  }
  std::string reg() const { return (dir_ / "reg").string(); }

  fs::path dir_;
  std::string data_;
};

TEST_F(RegistryTest, DefinitionRoundTrips) {
  ExperimentDefinition def = definition({"featureless", "knn"});
  def.spec.data.drop = {"x2"};
  def.spec.design.strata = {"y"};
  def.params.splits.ratio = 0.1;  // not exactly representable: must come back bit for bit
  def.params.splits.seed = std::numeric_limits<std::uint64_t>::max();
  def.params.run.learner_params = Json{{"knn", {{"k", 3}}}};
  const Json json = definition_json(def);
  const ExperimentDefinition back = definition_from_json(json, "x.json");
  EXPECT_EQ(definition_json(back), json);
  EXPECT_EQ(back.params.splits.ratio, 0.1);
  EXPECT_EQ(back.params.splits.seed, std::numeric_limits<std::uint64_t>::max());
  Json bad = json;
  bad["splits"]["folds"] = "ten";
  EXPECT_THROW_MSG(definition_from_json(bad, "x.json"), Error,
                   "x.json (splits): field \"folds\": expected an integer, found \"ten\"");
  bad = json;
  bad.erase("learners");
  EXPECT_THROW_MSG(definition_from_json(bad, "x.json"), Error,
                   "x.json: expected the field \"learners\", found none");
}

TEST_F(RegistryTest, UnitResultsRoundTripExactly) {
  soak::SoakUnitResult unit;
  unit.row.data = "toy";
  unit.row.learner = "glmnet";
  unit.row.test_subset = "306";
  unit.row.train_subsets = soak::TrainSubsets::other;
  unit.row.error_percent = 100.0 / 3.0;
  unit.row.auc = std::nextafter(0.5, 1.0);
  unit.row.mse = std::numeric_limits<double>::denorm_min();
  unit.row.train_seconds = 1e-300;
  unit.row.hyperparameters = R"({"lambda":0.1})";
  unit.auc_one_class = true;
  const auto back = unit_result_from_json(Json::parse(unit_result_json(unit).dump()), "r");
  EXPECT_EQ(back.row.error_percent, unit.row.error_percent);
  EXPECT_EQ(back.row.auc, unit.row.auc);
  EXPECT_EQ(back.row.mse, unit.row.mse);
  EXPECT_TRUE(std::isnan(back.row.mae));
  EXPECT_EQ(back.row.train_seconds, 1e-300);
  EXPECT_EQ(back.row.test_subset, "306");
  EXPECT_EQ(back.row.train_subsets, soak::TrainSubsets::other);
  EXPECT_EQ(back.row.hyperparameters, unit.row.hyperparameters);
  EXPECT_TRUE(back.auc_one_class);
}

TEST_F(RegistryTest, PlanWritesTheJobTableAndOpenReadsItBack) {
  const Registry planned = Registry::plan(reg(), definition({"featureless", "knn"}), "");
  // 2 subsets x 3 folds x same/other/all, for each of 2 learners.
  ASSERT_EQ(planned.n_jobs(), 36u);
  for (const char* f : {"registry.json", "jobs.csv", "results", "running", "failed"}) {
    EXPECT_TRUE(fs::exists(fs::path(reg()) / f)) << f;
  }
  const Registry opened = Registry::open(reg());
  EXPECT_EQ(opened.id(), planned.id());
  ASSERT_EQ(opened.n_jobs(), planned.n_jobs());
  for (std::size_t i = 0; i < opened.n_jobs(); ++i) {
    const JobInfo &a = planned.jobs()[i], &b = opened.jobs()[i];
    EXPECT_EQ(a.job, i + 1);
    EXPECT_EQ(b.job, a.job);
    EXPECT_EQ(b.learner, a.learner);
    EXPECT_EQ(b.test_subset, a.test_subset);
    EXPECT_EQ(b.train_subsets, a.train_subsets);
    EXPECT_EQ(b.n_train, a.n_train);
    EXPECT_EQ(b.cost, a.cost);
  }
  EXPECT_EQ(planned.jobs()[0].learner, "featureless");
  EXPECT_EQ(planned.jobs()[18].learner, "knn");
  EXPECT_EQ(planned.inputs().at(0).path, fs::absolute(data_).lexically_normal().string());
  EXPECT_EQ(planned.inputs().at(0).sha256.size(), 64u);
  EXPECT_THROW_MSG(opened.check_job(37), Error,
                   "job 37 is out of range: " + reg() + " has jobs 1..36");
  EXPECT_THROW_MSG(opened.check_job(0), Error,
                   "job 0 is out of range: " + reg() + " has jobs 1..36");
}

TEST_F(RegistryTest, JobsRunAnywhereEqualTheOneProcessRun) {
  std::vector<std::string> warnings;
  ScopedWarningHandler quiet([&](const std::string& m) { warnings.push_back(m); });
  const ExperimentDefinition def = definition({"featureless", "knn"});
  const ExperimentOutcome direct = run_experiment(def, 2);
  const Registry registry = Registry::plan(reg(), def, "");
  const LoadedExperiment loaded = registry.load();
  // In reverse order, one at a time, as independent processes would.
  for (std::size_t job = registry.n_jobs(); job >= 1; --job) {
    registry.write_result(job, run_unit(def, loaded, job - 1, 1), JobProvenance{});
  }
  const ExperimentOutcome collected = collect(registry);
  const auto& a = direct.soak.results.rows;
  const auto& b = collected.soak.results.rows;
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].iteration, b[i].iteration);
    EXPECT_EQ(a[i].learner, b[i].learner);
    EXPECT_EQ(a[i].n_train, b[i].n_train);
    EXPECT_EQ(a[i].hyperparameters, b[i].hyperparameters);
    EXPECT_TRUE(a[i].error_percent == b[i].error_percent ||
                (std::isnan(a[i].error_percent) && std::isnan(b[i].error_percent)))
        << i;
    EXPECT_TRUE(a[i].auc == b[i].auc || (std::isnan(a[i].auc) && std::isnan(b[i].auc))) << i;
  }
  ASSERT_EQ(direct.soak.statistics.comparisons.size(),
            collected.soak.statistics.comparisons.size());
  for (std::size_t i = 0; i < direct.soak.statistics.comparisons.size(); ++i) {
    const auto& x = direct.soak.statistics.comparisons[i].paired;
    const auto& y = collected.soak.statistics.comparisons[i].paired;
    EXPECT_TRUE(x.p_value == y.p_value || (std::isnan(x.p_value) && std::isnan(y.p_value)));
  }
  // The output files are the same bytes, apart from measured seconds in results.csv/json.
  write_outputs(def, direct, (dir_ / "direct").string());
  write_outputs(def, collected, (dir_ / "collected").string());
  for (const char* f : {"pvalues.csv", "summaries.csv", "report.html"}) {
    EXPECT_EQ(read_file(dir_ / "direct" / f), read_file(dir_ / "collected" / f)) << f;
  }
}

TEST_F(RegistryTest, ReplanningTheSameExperimentKeepsResults) {
  const ExperimentDefinition def = definition();
  const Registry first = Registry::plan(reg(), def, "");
  const LoadedExperiment loaded = first.load();
  first.write_result(3, run_unit(def, loaded, 2, 1), JobProvenance{});
  const Registry again = Registry::plan(reg(), def, (dir_ / "out").string());
  EXPECT_EQ(again.id(), first.id());
  EXPECT_TRUE(again.has_result(3));
  EXPECT_EQ(again.out(), (dir_ / "out").string());
  EXPECT_NE(plan_text(again).find("already planned: 1 of 18 jobs done"), std::string::npos);
}

TEST_F(RegistryTest, AnotherExperimentInTheSameFolderIsRefused) {
  Registry::plan(reg(), definition(), "");
  ExperimentDefinition other = definition();
  other.params.splits.folds = 4;
  EXPECT_THROW_MSG(Registry::plan(reg(), other, ""), Error,
                   reg() +
                       " holds the registry of another experiment (\"splits\" is "
                       "{\"folds\":3,\"subsets\":\"SOA\",\"sizes\":-1,\"ratio\":0.5,"
                       "\"seeds\":1,\"seed\":1} there but {\"folds\":4,\"subsets\":\"SOA\","
                       "\"sizes\":-1,\"ratio\":0.5,\"seeds\":1,\"seed\":1} here); plan this "
                       "one in a new folder, or delete that one");
}

TEST_F(RegistryTest, ChangedInputsAreRefused) {
  const Registry registry = Registry::plan(reg(), definition(), "");
  std::ofstream(data_, std::ios::app) << "1,1,east,a\n";
  try {
    registry.load();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(data_ + ": input of registry " + reg() + " has changed since it was planned"),
              std::string::npos)
        << m;
  }
  // A registry planned now with the changed file is another experiment.
  EXPECT_THROW(Registry::plan(reg(), definition(), ""), Error);
}

TEST_F(RegistryTest, MissingOrForeignFoldersAreRefused) {
  const std::string none = (dir_ / "none").string();
  EXPECT_THROW_MSG(Registry::open(none), Error,
                   none +
                       ": no such folder; expected a registry planned with `assay soak ... "
                       "--plan " +
                       none + "`");
  EXPECT_THROW_MSG(Registry::open(dir_.string()), Error,
                   dir_.string() +
                       " is not an assay registry (it has no registry.json); plan "
                       "one with `assay soak ... --plan " +
                       dir_.string() + "`");
  EXPECT_THROW_MSG(Registry::open(data_), Error,
                   data_ + ": expected a registry folder, found a file");
  EXPECT_THROW_MSG(Registry::plan(dir_.string(), definition(), ""), Error,
                   dir_.string() +
                       ": expected a new or empty folder for the registry, found a "
                       "folder with other files (and no registry.json)");
  const fs::path foreign = dir_ / "foreign";
  fs::create_directories(foreign);
  write_file_atomic((foreign / "registry.json").string(), "{\"format\": \"something else\"}\n");
  EXPECT_THROW_MSG(Registry::open(foreign.string()), Error,
                   (foreign / "registry.json").string() +
                       ": expected an assay registry (format \"assay-registry 1\"), found "
                       "\"something else\"");
  write_file_atomic((foreign / "registry.json").string(), "{\n  \"format\": oops\n}\n");
  EXPECT_THROW_MSG(Registry::open(foreign.string()), Error,
                   (foreign / "registry.json").string() + ":2:13: expected JSON, found \"oops\"");
}

TEST_F(RegistryTest, AnotherVersionIsRefused) {
  Registry::plan(reg(), definition(), "");
  const fs::path json = fs::path(reg()) / "registry.json";
  Json doc = Json::parse(read_file(json));
  doc["assay_version"] = "0.0.1";
  write_file_atomic(json.string(), doc.dump(1));
  EXPECT_THROW_MSG(Registry::open(reg()), Error,
                   reg() + " was planned by assay 0.0.1, this is assay " + assay_version() +
                       ": results of different versions are not mixed; plan the experiment "
                       "again in a new folder");
}

TEST_F(RegistryTest, CollectRefusesMissingAndForeignResults) {
  const ExperimentDefinition def = definition();
  const Registry registry = Registry::plan(reg(), def, "");
  const LoadedExperiment loaded = registry.load();
  for (std::size_t job = 1; job <= registry.n_jobs(); ++job) {
    if (job != 4 && (job < 9 || job > 11)) {
      registry.write_result(job, run_unit(def, loaded, job - 1, 1), JobProvenance{});
    }
  }
  EXPECT_THROW_MSG(collect(registry), Error,
                   "cannot collect " + reg() +
                       ": 4 of 18 jobs have no result (jobs 4, 9-11); "
                       "`assay job status " +
                       reg() + "` says why");
  // A result copied in from another registry.
  ExperimentDefinition other_def = definition();
  other_def.params.run.seed = 2;
  const std::string other = (dir_ / "other").string();
  const Registry other_reg = Registry::plan(other, other_def, "");
  for (std::size_t job : {4, 9, 10, 11}) {
    registry.write_result(job, run_unit(def, loaded, job - 1, 1), JobProvenance{});
  }
  fs::copy_file(other_reg.dir() / "registry.json", dir_ / "unused.json");
  other_reg.write_result(4, run_unit(def, loaded, 3, 1), JobProvenance{});
  fs::copy_file(other_reg.result_path(4), registry.result_path(4),
                fs::copy_options::overwrite_existing);
  EXPECT_THROW_MSG(collect(registry), Error,
                   "cannot collect " + reg() + ": 1 of 18 jobs has a damaged result (" +
                       registry.result_path(4).string() +
                       ": belongs to another experiment (registry id " +
                       other_reg.id().substr(0, 12) + "), not to " + reg() + " (id " +
                       registry.id().substr(0, 12) + ")); `assay job run " + reg() +
                       " --all` (or `assay job submit " + reg() +
                       "`) moves damaged results aside and runs those jobs again");
}

TEST_F(RegistryTest, FailuresAccumulateAttempts) {
  const Registry registry = Registry::plan(reg(), definition(), "");
  JobProvenance p;
  p.attempt = 1;
  registry.record_failure(2, "first", p);
  p.attempt = 2;
  registry.record_failure(2, "second", p);
  const auto failures = registry.failures(2);
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].first, "first");
  EXPECT_EQ(failures[1].first, "second");
  EXPECT_EQ(failures[1].second.attempt, 2u);
  write_file_atomic(registry.failed_path(3).string(), "{\"attempts\": [1e400]}");
  EXPECT_THROW_MSG(registry.failures(3), Error,
                   registry.failed_path(3).string() +
                       ":1:15: expected a number within the range of a double, found 1e400");
}

// A worker claims a job by creating running/JOB.json exclusively; only its holder releases it.
TEST_F(RegistryTest, ClaimsAreExclusiveAndReleasedByTheirHolder) {
  const Registry registry = Registry::plan(reg(), definition(), "");
  JobProvenance me;
  me.host = "h";  // not this host: release() leaves claims of others alone
  me.pid = 1;
  EXPECT_TRUE(registry.claim(2, me));
  EXPECT_FALSE(registry.claim(2, me));
  const auto claim = registry.claim_of(2);
  ASSERT_TRUE(claim.has_value());
  EXPECT_EQ(claim->holder.host, "h");
  EXPECT_TRUE(claim->damage.empty());
  EXPECT_EQ(claim->token.size(), 16u);
  registry.release(2);
  EXPECT_TRUE(registry.running(2).has_value());
  // This process's claim is released by it (and by writing the job's result).
  fs::remove(registry.running_path(2));
  JobProvenance here = JobProvenance{};
  here.host = detail_host();
  here.pid = ::getpid();
  EXPECT_TRUE(registry.claim(2, here));
  EXPECT_NE(registry.claim_of(2)->process_start, 0u);
  registry.release(2);
  EXPECT_FALSE(registry.claim_of(2).has_value());
  // No temporary files are left behind.
  EXPECT_TRUE(fs::is_empty(registry.dir() / "running"));
}

// Damaged result files — garbage, a folder, a number beyond double, another job's row — are
// reported with what is wrong and where, never as "internal error".
TEST_F(RegistryTest, DamagedResultsAreNamedWithWhatIsWrong) {
  const ExperimentDefinition def = definition();
  const Registry registry = Registry::plan(reg(), def, "");
  const LoadedExperiment loaded = registry.load();
  for (std::size_t job = 1; job <= registry.n_jobs(); ++job) {
    registry.write_result(job, run_unit(def, loaded, job - 1, 1), JobProvenance{});
  }
  const auto path = [&](std::size_t job) { return registry.result_path(job).string(); };
  std::string text = read_file(path(1));
  const auto at = text.find("\"n_test\": ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at + 10, text.find(',', at) - at - 10, "1e400");
  write_file_atomic(path(1), text);
  write_file_atomic(path(2), "garbage\n");
  fs::remove(path(3));
  fs::create_directory(path(3));
  fs::copy_file(path(5), path(4), fs::copy_options::overwrite_existing);
  write_file_atomic(path(6), "");
  const std::string line = std::to_string(1 + std::count(text.begin(), text.begin() + at, '\n'));
  const std::string column = std::to_string(at - text.rfind('\n', at) + 10);
  EXPECT_EQ(registry.check_result(1).state, ResultState::damaged);
  EXPECT_EQ(registry.check_result(1).damage,
            path(1) + ":" + line + ":" + column +
                ": expected a number within the range of a double, found 1e400");
  EXPECT_EQ(registry.check_result(2).damage, path(2) + ":1:1: expected JSON, found \"garbage\"");
  EXPECT_EQ(registry.check_result(3).damage, path(3) + ": expected a file, found a folder");
  EXPECT_EQ(registry.check_result(4).damage,
            path(4) + ": expected the result of job 4, found job 5");
  EXPECT_EQ(registry.check_result(6).damage, path(6) + ":1:1: expected JSON, found an empty file");
  EXPECT_EQ(registry.check_result(7).state, ResultState::valid);
  EXPECT_FALSE(registry.has_result(1));
  // Same job number, another job's row (an edited file).
  const Json doc = Json::parse(read_file(path(8)));
  Json moved = doc;
  moved["result"]["test.fold"] = doc["result"]["test.fold"].get<int>() % 3 + 1;
  write_file_atomic(path(8), moved.dump());
  EXPECT_NE(registry.check_result(8).damage.find(": expected the row of job 8 ("),
            std::string::npos)
      << registry.check_result(8).damage;
  try {
    collect(registry);
    ADD_FAILURE() << "collect accepted damaged results";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find("cannot collect " + reg() + ": 6 of 18 jobs have a damaged result (" +
                     registry.check_result(1).damage + "; " + registry.check_result(2).damage +
                     "; " + registry.check_result(3).damage + "; and 3 more); `assay job run "),
              0u)
        << m;
  }
  // Set aside, never deleted: the job is then missing.
  const fs::path aside = registry.set_aside(path(3));
  EXPECT_TRUE(fs::is_directory(aside));
  EXPECT_EQ(aside.string().rfind(path(3) + ".damaged-", 0), 0u);
  EXPECT_EQ(registry.check_result(3).state, ResultState::none);
}

// A damaged job table is named by its cell, never cast from nan or text.
TEST_F(RegistryTest, DamagedJobTableIsNamedByItsCell) {
  const Registry registry = Registry::plan(reg(), definition(), "");
  const std::string jobs = (registry.dir() / "jobs.csv").string();
  std::string text = read_file(jobs);
  const std::string first = text.substr(0, text.find('\n') + 1);
  std::string row = text.substr(first.size(), text.find('\n', first.size()) + 1 - first.size());
  const std::string rest = text.substr(first.size() + row.size());
  const std::string bad = "1" + row.substr(1, row.rfind(',') - 1) + ",nan\n";
  write_file_atomic(jobs, first + bad + rest);
  EXPECT_THROW_MSG(Registry::open(reg()), Error,
                   jobs + ":2:" + std::to_string(bad.rfind(',') + 2) +
                       ": column \"cost\": expected a number >= 0, found nan");
}

}  // namespace
}  // namespace assay::batch
