// The `arlab` binary: one CLI11 app, one subcommand per capability (see cli/commands.h).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "common/build_info.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"arlab: fused all-reduce kernels for tensor-parallel inference -- run, check, predict"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("arlab ") + arlab::git_sha());
  arlab::cli::add_numerics_command(app);
  arlab::cli::add_predict_command(app);
  arlab::cli::add_validate_command(app);
  arlab::cli::add_fit_command(app);
  arlab::cli::add_synthetic_command(app);
  arlab::cli::add_save_calibration_command(app);
  arlab::cli::add_run_command(app);
  arlab::cli::add_seed_command(app);
  arlab::cli::add_soak_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "arlab: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
