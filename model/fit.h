// Fitting the timing model's free constants to measured rows (docs/model.md: judged on held-out data).
//
// Method: Levenberg-Marquardt (damped Gauss-Newton, Eigen) on the log of each fitted constant
// (keeps them positive and makes steps scale-free), minimizing the sum of squared *relative*
// errors (predicted - measured) / measured over the training rows -- the quantity MAPE reports.
// The model is nonlinear in most constants (max() of latency, Little's-law and port bounds), so
// no constant is fitted in closed form; the Jacobian is taken by forward differences (relative
// step 1e-6 in log space). Constants not selected keep their starting values.
// Split: deterministic by problem (FNV-1a hash of the problem key): a problem's rows are either all
// in training or all held out, so the held-out error measures generalization to unseen problems.
#pragma once

#include <string>
#include <vector>

#include "model/calibration.h"
#include "model/measurements.h"

namespace arlab::model {

// The constants fitted by default: the ones the kernels' timings can separate (additive constants
// such as rank_skew_us are collinear with launch_overhead_us and stay fixed).
std::vector<std::string> default_fit_parameters();

struct FitOptions {
  std::vector<std::string> parameters = default_fit_parameters();
  int holdout_every = 5;       // problems whose hash % holdout_every == 0 are held out (20%); >= 2
  int max_iterations = 100;    // >= 1
  std::string gpu_override;    // as in ValidateOptions
  std::string source;          // the rows' file, named (file:line) by errors about the rows
};

struct FittedConstant {
  std::string name;
  double start = 0;
  double fitted = 0;
};

struct FitReport {
  Calibration fitted;
  std::vector<FittedConstant> constants;
  int train_rows = 0, test_rows = 0, train_problems = 0, test_problems = 0;
  double train_mape_start = 0, train_mape_fitted = 0;  // fractions
  double test_mape_start = 0, test_mape_fitted = 0;
  int iterations = 0;
  bool converged = false;
  std::string stop_reason;
};

// Is this row's problem held out? (deterministic; exposed for tests and the CLI's report)
bool is_held_out(const MeasuredRow& row, int holdout_every);

// Throws InvalidArgument for a request that cannot give a fit worth its name: an unknown or
// repeated parameter, holdout_every < 2 (nothing held out) or max_iterations < 1 (no fit); and,
// naming the rows' file (CsvError), for rows that cannot determine the constants: no usable
// training row, a split that holds out no problem (its held-out error would read 0 %), or fewer
// distinct training (problem, configuration) points or distinct problems than fitted constants.
// Also (CsvError, naming the file) when a fitted constant leaves its physical range
// (model/calibration.h): the fit then explains nothing, and its calibration could not be read back.
FitReport fit_calibration(const std::vector<MeasuredRow>& rows, const Calibration& start, const FitOptions& opts);

}  // namespace arlab::model
