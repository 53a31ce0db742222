// `arlab run` (under construction in this commit series).
#include <CLI/CLI.hpp>

#include "harness/commands.h"

namespace arlab::cli {
void add_run_command(CLI::App&) {}
}  // namespace arlab::cli
