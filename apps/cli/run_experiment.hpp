// How `assay soak` and `assay cv` run once their options are parsed (the modes of a learning
// command): with --plan DIR, write a batch registry; under mpirun, share the units between the
// ranks; otherwise run every unit here.
//
//   batch::ExperimentDefinition def;   // filled from the command's options
//   run_experiment_command(def, *options, global);
#pragma once

#include "assay/batch/experiment.hpp"
#include "commands.hpp"
#include "learning_options.hpp"

namespace assay::cli {

/// Runs an experiment the way `assay soak` and `assay cv` do: with --plan DIR (and not under
/// mpirun) it only writes the batch registry and says how to run it; under mpirun the ranks
/// share the units (with --plan through the registry, so a rerun resumes); otherwise every unit
/// runs in this process. Writes the outputs to --out and prints the summary (rank 0 only).
void run_experiment_command(const batch::ExperimentDefinition& def, const LearningOptions& o,
                            const GlobalOptions& global);

}  // namespace assay::cli
