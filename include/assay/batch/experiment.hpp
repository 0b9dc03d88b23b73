// An experiment as data: what `assay soak` or `assay cv` was asked to run (files, column roles,
// splits, learners, seed), so that it can be written into a batch registry, rebuilt in another
// process (a Slurm array task, an MPI rank) and its outputs written by whichever process
// collects the results — the same files the one-machine run writes.
//
// Example:
//   ExperimentDefinition def;  def.kind = ExperimentKind::soak;  def.files = {"vowel.csv"};
//   def.spec.data.label = "y";  def.spec.design.subset = "subset";
//   def.params.run.learners = {"glmnet"};
//   LoadedExperiment loaded = load_experiment(def);          // reads the files once
//   std::size_t n = loaded.n_units();                        // one per data set x learner x split
//   std::vector<soak::SoakUnitResult> units;
//   for (std::size_t i = 0; i < n; ++i) units.push_back(run_unit(def, loaded, i, 1));   // 1 thread
//   ExperimentOutcome out = outcome_from_units(def, std::move(loaded), std::move(units));
//   write_outputs(def, out, "out");                          // results.csv, ..., report.html
//
// Units are numbered as soak::SoakUnits numbers them, so a unit computed anywhere equals the
// one-process run's row of that index bit for bit (measured seconds aside).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "assay/core/json.hpp"
#include "assay/core/table.hpp"
#include "assay/learners/learner.hpp"
#include "assay/soak/cv.hpp"
#include "assay/soak/experiment.hpp"
#include "assay/soak/tables.hpp"

namespace assay::batch {

enum class ExperimentKind { soak, cv };

/// "soak" or "cv".
const char* to_string(ExperimentKind kind);

struct ExperimentDefinition {
  /// `assay soak` (Same/Other/All) or `assay cv` (plain K-fold comparison of learners).
  ExperimentKind kind = ExperimentKind::soak;
  /// CSV files, one data set each, named by the file's stem.
  std::vector<std::string> files;
  /// Column roles. cv uses data, design.group, design.fold and task.
  soak::SoakTableSpec spec;
  /// Splits, learners and statistics. cv uses splits.folds, splits.seed, run.learners and
  /// run.learner_params; run.threads is not part of the definition (results do not depend on it).
  soak::SoakExperimentParams params;
  /// Title of the report page ("assay soak: vowel.csv").
  std::string title;
  /// The files' field separator and decimal mark (--delimiter, --decimal); unset: detected
  /// from each file's header (core/csv.hpp, "Separators").
  std::optional<char> delimiter, decimal;
};

/// The definition as JSON (every field but run.threads), keys in a fixed order.
Json definition_json(const ExperimentDefinition& def);

/// Reads definition_json's output back; `where` names the file in messages. Throws assay::Error
/// for a missing or mistyped field.
ExperimentDefinition definition_from_json(const Json& json, const std::string& where);

/// cv's parameters from a cv definition, with `threads`.
soak::CvParams cv_params(const ExperimentDefinition& def, int threads);

/// Every file read as CSV, named by its stem. Classification labels stay categorical so that
/// "1".."11" are class names, not numbers. Throws assay::Error for unreadable files.
std::vector<std::pair<std::string, Table>> read_experiment_tables(
    const std::vector<std::string>& files, const std::string& label, learners::TaskKind task,
    std::optional<char> delimiter = {}, std::optional<char> decimal = {});

/// The data sets with their splits, and the learners: what every process of a batch run loads
/// once.
struct LoadedExperiment {
  std::vector<soak::SoakTask> tasks;
  std::vector<std::unique_ptr<learners::Learner>> owned;
  std::vector<const learners::Learner*> learners;

  std::size_t n_units() const { return soak::SoakUnits(tasks, learners.size()).size(); }
};

/// Reads the files and builds tasks and learners exactly as `assay soak` / `assay cv` do.
/// Throws assay::Error as they do (bad columns, unknown learners, data set names not unique...).
LoadedExperiment load_experiment(const ExperimentDefinition& def);

/// Runs unit u (0-based) with `threads` learner threads: the row the one-process run gives.
soak::SoakUnitResult run_unit(const ExperimentDefinition& def, const LoadedExperiment& loaded,
                              std::size_t u, int threads);

/// What an experiment produced: soak's statistics or cv's summaries, from the unit results.
struct ExperimentOutcome {
  ExperimentKind kind = ExperimentKind::soak;
  soak::SoakOutcome soak;  ///< kind == soak
  soak::CvOutcome cv;      ///< kind == cv
};

/// The outcome of every unit (in unit order, all of them), giving the warnings the one-process
/// run gives (NA rows, undefined AUCs).
ExperimentOutcome outcome_from_units(const ExperimentDefinition& def, LoadedExperiment loaded,
                                     std::vector<soak::SoakUnitResult> units);

/// Runs every unit in this process on `threads` threads (0 = all cores): the one-machine run.
ExperimentOutcome run_experiment(const ExperimentDefinition& def, int threads);

/// Writes the output files of the experiment into `dir` (created if missing), each atomically:
/// soak: results.csv, pvalues.csv, summaries.csv, results.json, report.html; cv: results.csv,
/// summary.csv, results.json, report.html.
void write_outputs(const ExperimentDefinition& def, const ExperimentOutcome& outcome,
                   const std::string& dir);

/// The file names write_outputs writes, as "{results.csv,...}" for messages.
std::string output_names(ExperimentKind kind);
/// The same names as a list (checked against the inputs before a run).
std::vector<std::string> output_files(ExperimentKind kind);

/// What the one-machine run prints on stdout: the description and summary table, or with
/// `json` the statistics (soak) / summaries (cv) as JSON.
std::string outcome_text(const ExperimentDefinition& def, const ExperimentOutcome& outcome,
                         bool json);

}  // namespace assay::batch
