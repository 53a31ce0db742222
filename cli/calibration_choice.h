// One calibration rule for every command (docs/cli.md, the paragraph on `--calibration`):
// --calibration auto, the default of every command that takes one, means the measured calibration of
// the node kind the command is about: data/calibration/h200_emulated.csv for the emulated H200 node,
// h200_nvlink.csv for the real NVLink one, found in this source tree or under ./data/calibration/.
// Where the command is about no single H200 node kind, or the file is not found, it means the
// built-in priors, and the command says why. `priors` names the built-in priors; anything else is a
// calibration CSV. Every command echoes the choice.
#pragma once

#include <string>

#include <vector>

#include "model/calibration.h"
#include "model/measurements.h"

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

// `given` is --calibration's value. node / h200: the node kind the command is about and whether its
// GPU is an H200 (the committed calibrations are H200's); why_none says why there is no single node
// kind (for NodeKind::none), or why the GPU is not taken for an H200.
CalibrationChoice choose_calibration(const std::string& given, NodeKind node, bool h200, const std::string& why = "");

// The constants of the choice: the file's, or the built-in priors.
model::Calibration load_choice(const CalibrationChoice& c);

// --calibration for commands about measured rows (validate, fit, exp's figures): the node kind of the
// rows (one kind when every row has the same link; local is the emulated node) and an H200 when every
// row's GPU is one (or gpu_override, a --gpu preset, names one).
CalibrationChoice calibration_for_rows(const std::string& given, const std::vector<model::MeasuredRow>& rows,
                                       const std::string& gpu_override);

// Whether a GPU name (a measurement row's gpu column or a --gpu preset) is an H200.
bool is_h200_name(const std::string& gpu);

}  // namespace arlab::cli
