#include "commands.hpp"

namespace assay::cli {

Action add_metrics_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto* cmd = app.add_subcommand("metrics", "classification metrics of predictions in a CSV file");
  return [cmd] {
    if (!cmd->parsed()) return;
  };
}

}  // namespace assay::cli
