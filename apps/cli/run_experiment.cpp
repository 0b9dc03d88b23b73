// Mode dispatch of the learning commands (`assay soak`, `assay cv`): plan a batch registry,
// share the units between MPI ranks, or run every unit here; then write the outputs and the
// summary.
#include "run_experiment.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "assay/batch/distributed.hpp"
#include "assay/batch/registry.hpp"
#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/output_file.hpp"

namespace assay::cli {
namespace {

// Creates `out` (and parents) if missing; throws assay::Error if it cannot.
std::filesystem::path output_folder(const std::string& out) {
  prepare_output_folder(out, /*create=*/true);
  return out;
}

}  // namespace

void run_experiment_command(const batch::ExperimentDefinition& def, const LearningOptions& o,
                            const GlobalOptions& global) {
  if (o.out.empty() && o.plan.empty()) {
    fail("--out DIR is required (or --plan DIR to write a batch registry)");
  }
  for (const auto& file : o.files) note_input(file, "the data");
  // An unwritable --out fails now, before every learner is trained. Planning only names the
  // folder that `assay job collect` writes later, so it creates nothing.
  if (!o.out.empty() && !o.plan.empty() && !global.launched_by_mpi) {
    prepare_output_folder(o.out, /*create=*/false);
  } else if (!o.out.empty()) {
    check_writable((output_folder(o.out) / "results.json").string());
  }
  if (!o.out.empty()) check_derived_outputs(o.out, batch::output_files(def.kind), "--out " + o.out);
  std::optional<batch::ExperimentOutcome> outcome;
  std::string out = o.out;
  if (global.launched_by_mpi) {
    if (global.distributor == nullptr) {
      fail(
          "assay was started by mpirun but built without MPI support; rebuild it with an MPI "
          "library installed (Debian: libopenmpi-dev), or run it without mpirun");
    }
    outcome = batch::run_distributed(
        def, *global.distributor,
        batch::DistributedParams{.threads = o.threads, .registry = o.plan, .out = o.out});
    if (!outcome) return;  // not rank 0
    if (out.empty()) out = batch::Registry::open(o.plan).out();
    if (out.empty()) fail("--out DIR is required to write the outputs of an MPI run");
  } else if (!o.plan.empty()) {
    const auto registry = batch::Registry::plan(o.plan, def, o.out);
    std::cout << batch::plan_text(registry);
    return;
  } else {
    outcome = batch::run_experiment(def, o.threads);
  }
  batch::write_outputs(def, *outcome, out);
  std::cout << batch::outcome_text(def, *outcome, o.json);
  flush_stdout();
  std::fprintf(stderr, "assay: wrote %s/%s\n", out.c_str(), batch::output_names(def.kind).c_str());
}

}  // namespace assay::cli
