// One calibration rule for every command (docs/cli.md, the paragraph on `--calibration`):
// --calibration auto, the default of every command that takes one, means the measured calibration of
// the node kind the command is about: the GPU model and the node (data/calibration/h200_emulated.csv for
// the emulated H200 node, h200_nvlink.csv for the real NVLink one, h100_emulated.csv for the emulated
// H100 node), found in this source tree or under ./data/calibration/. Where the command is about no
// single node kind, its GPU has no measured calibration of that node, or the file is not found, it means
// the built-in priors, and the command says why. `priors` names the built-in priors; anything else is a
// calibration CSV. Every command echoes the choice.
#pragma once

#include <string>

#include <vector>

#include "model/calibration.h"
#include "model/measurements.h"
#include "session/run_plan.h"

namespace arlab::cli {

enum class NodeKind {
  emulated,  // one GPU split into SM partitions, one per rank
  nvlink,    // one GPU per rank, NVLink between them
  none,      // the command is about no single node kind (the reason is given)
};

struct CalibrationChoice {
  std::string path;  // the file; empty: the built-in priors
  std::string text;  // what the command echoes: the file and why, or the priors and why
};

constexpr const char* kCalibrationAuto = "auto";
constexpr const char* kCalibrationPriors = "priors";

// The help text of --calibration, the same for every command.
std::string calibration_option_help();

// `given` is --calibration's value. node / gpu: the node kind the command is about and its GPU's
// family (gpu_family; "" where it is unknown or the rows mix GPUs); why says why there is no single node
// kind (for NodeKind::none), or where the GPU was read (quoted where no family was found).
CalibrationChoice choose_calibration(const std::string& given, NodeKind node, const std::string& gpu,
                                     const std::string& why = "");

// The constants of the choice: the file's, or the built-in priors.
model::Calibration load_choice(const CalibrationChoice& c);

// --calibration for commands about measured rows (validate, fit, exp's figures): the node kind of the
// rows (one kind when every row has the same link; local is the emulated node) and their GPU family
// when every row's GPU is of the same one (or gpu_override, a --gpu preset, names one).
CalibrationChoice calibration_for_rows(const std::string& given, const std::vector<model::MeasuredRow>& rows,
                                       const std::string& gpu_override);

// `run` / `exp` with --calibration auto, once the node has queried its device (RunPlan::calibration_for_gpu):
// plan's calibration and calibration_source become the choice for a node of kind `node` on the GPU
// `gpu_name` (the device's name): its family's measured file, else the built-in priors, saying why.
void choose_for_gpu(NodeKind node, session::RunPlan& plan, const std::string& gpu_name);

// The family of a GPU name (a measurement row's gpu column, a device name or a --gpu preset): its model,
// a word of one letter and 2-3 digits, in lower case ("NVIDIA H200" and h200_sxm -> "h200", "NVIDIA H100
// 80GB HBM3" -> "h100", "NVIDIA B200" -> "b200"); "" where the name has none. Its measured calibrations
// are data/calibration/FAMILY_emulated.csv and FAMILY_nvlink.csv, where they exist (today h200's two and
// h100_emulated.csv): a GPU gains its own by committing them.
std::string gpu_family(const std::string& gpu);

}  // namespace arlab::cli
