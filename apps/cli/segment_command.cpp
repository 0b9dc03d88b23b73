// Placeholder until `assay segment` lands.
#include "commands.hpp"

namespace assay::cli {

Action add_segment_command(CLI::App& app, const GlobalOptions&) {
  app.add_subcommand("segment", "segmentation evaluation on 3-D volumes (not built yet)");
  return [] {};
}

}  // namespace assay::cli
