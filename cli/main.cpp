// The `arlab` binary: one CLI11 app, one subcommand per capability (see cli/commands.h).
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "common/build_info.h"
#include "common/csv.h"
#include "cli/cli_checks.h"
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
  arlab::cli::add_calibrate_command(app);
  arlab::cli::add_exp_command(app);
  // Every number option of every subcommand in decimal: no "010" read as octal 8 (cli/cli_checks.h).
  arlab::cli::require_decimal_numbers(app);
  // A write beyond a file size limit (ulimit -f) fails with EFBIG, which the writers handle (the file
  // is left as it was: common/output_file.h, common/csv.h CsvAppender), instead of SIGXFSZ killing the
  // process half-way through a row.
  std::signal(SIGXFSZ, SIG_IGN);
  // Exit code of every refused input and failed command (CLI11's own parse errors keep theirs).
  constexpr int kErrorExitCode = 2;
  // A first argument that is no option and no subcommand is named as such (CLI11 would only say
  // that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
      known = known || sub->check_name(argv[1]);
    }
    if (!known) {
      std::fprintf(stderr, "arlab: error: unknown subcommand '%s' (expected one of: %s; see arlab --help)\n",
                   arlab::cut_for_message(argv[1]).c_str(), names.c_str());
      return kErrorExitCode;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "arlab: error: out of host memory (std::bad_alloc): the inputs or sizes given need more "
                         "memory than this machine has\n");
    return kErrorExitCode;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "arlab: error: %s\n", e.what());
    return kErrorExitCode;
  }
  return 0;
}
