// Placeholder: the shift subcommand replaces this file.
#include "commands.hpp"
namespace assay::cli {
Action add_shift_command(CLI::App&, const GlobalOptions&) { return [] {}; }
}  // namespace assay::cli
