// `arlab predict`, `arlab validate`, `arlab fit` (under construction in this commit series).
#include <CLI/CLI.hpp>

#include "harness/commands.h"

namespace arlab::cli {
void add_predict_command(CLI::App&) {}
void add_validate_command(CLI::App&) {}
void add_fit_command(CLI::App&) {}
}  // namespace arlab::cli
