// Placeholder until `assay cv` lands.
#include "commands.hpp"

namespace assay::cli {

Action add_cv_command(CLI::App& app, const GlobalOptions&) {
  app.add_subcommand("cv", "plain K-fold comparison of learners (not built yet)");
  return [] {};
}

}  // namespace assay::cli
