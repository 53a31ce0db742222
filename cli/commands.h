// Registration points of the `arlab` subcommands. Each function adds one subcommand (options and
// callback) to the CLI11 app; main.cpp calls them all. Commands that need a GPU are registered
// in every build and explain themselves when the binary was built without CUDA.
#pragma once

namespace CLI {
class App;
}

namespace arlab::cli {

void add_numerics_command(CLI::App& app);          // cli/cli_numerics.cpp       (CPU)
void add_predict_command(CLI::App& app);           // cli/cli_model.cpp          (CPU)
void add_validate_command(CLI::App& app);          // cli/cli_model.cpp          (CPU)
void add_fit_command(CLI::App& app);               // cli/cli_model.cpp          (CPU)
void add_synthetic_command(CLI::App& app);         // cli/cli_model.cpp          (CPU)
void add_save_calibration_command(CLI::App& app);  // cli/cli_model.cpp          (CPU)
void add_run_command(CLI::App& app);               // cli/cli_run.cpp            (GPU)
void add_seed_command(CLI::App& app);              // cli/cli_seed.cpp           (GPU, or CPU with committed data)
void add_soak_command(CLI::App& app);              // cli/cli_soak.cpp           (GPU)
void add_calibrate_command(CLI::App& app);         // cli/cli_calibrate.cpp      (GPU)
void add_exp_command(CLI::App& app);               // cli/cli_exp.cpp            (GPU; numerics and --merge: CPU)

}  // namespace arlab::cli
