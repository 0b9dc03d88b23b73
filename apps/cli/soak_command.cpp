// Placeholder: the soak subcommand replaces this file.
#include "commands.hpp"
namespace assay::cli {
Action add_soak_command(CLI::App&, const GlobalOptions&) { return [] {}; }
}  // namespace assay::cli
