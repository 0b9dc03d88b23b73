#include "learning_options.hpp"

#include <fstream>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/output_file.hpp"

namespace assay::cli {

void LearningOptions::add_data_options(CLI::App* cmd) {
  cmd->add_option("files", files, "CSV data set(s); every file gets the same column roles")
      ->required();
  cmd->add_option("--label", label, "label (target) column")->required();
}

void LearningOptions::add_learner_options(CLI::App* cmd) {
  cmd->add_option("--learners", learners, "learners, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--learner-param", learner_params,
                  "a learner parameter, LEARNER.KEY=VALUE (repeatable; VALUE as JSON if it "
                  "parses, else text), e.g. glmnet.alpha=0.5");
}

void LearningOptions::add_column_options(CLI::App* cmd) {
  auto* only =
      cmd->add_option("--features", features, "use only these feature columns (comma-separated)")
          ->delimiter(',');
  cmd->add_option("--drop", drop, "columns that are not features (comma-separated)")
      ->delimiter(',')
      ->excludes(only);
  cmd->add_option("--weight", weight, "row-weight column");
  cmd->add_option("--task", task, "classification or regression")->capture_default_str();
}

learners::TaskKind LearningOptions::task_kind() const {
  if (task == "classification") return learners::TaskKind::classification;
  if (task == "regression") return learners::TaskKind::regression;
  fail("--task must be classification or regression, found {}", quote_found(task));
}

learners::DatasetColumns LearningOptions::columns() const {
  learners::DatasetColumns c;
  c.label = label;
  c.features = features;
  c.drop = drop;
  c.weight = weight;
  return c;
}

std::vector<std::pair<std::string, Table>> LearningOptions::read_tables() const {
  CsvParams csv;
  if (task_kind() == learners::TaskKind::classification) csv.categorical = {label};
  std::vector<std::pair<std::string, Table>> tables;
  for (const auto& file : files) {
    tables.emplace_back(std::filesystem::path(file).stem().string(), read_csv(file, csv));
  }
  return tables;
}

std::filesystem::path output_folder(const std::string& out) {
  const std::filesystem::path dir(out);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail("{}: cannot create directory: {}", out, ec.message());
  return dir;
}

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  write_file_atomic(path.string(), text);
}

}  // namespace assay::cli
