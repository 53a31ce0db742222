// Validation of the timing model against measured rows (docs/model.md): per-row prediction and error,
// MAPE, median APE, Spearman rank correlation, and each policy's regret.
//
// Rows are grouped into problems (model/measurements.h problem_key: machine + problem + algo).
// Regret of a policy on a problem = time(the configuration the policy chooses, as measured) /
// time(best measured configuration of that problem) - 1, with repeated measurements of one
// configuration averaged first.
//   legacy, trtllm, occupancy: the policy is re-run on the row's spec and regs; when its
//     configuration was not measured for that problem, the problem counts as `unmeasured` for that
//     policy and is left out of its regret statistics (never guessed); when the policy refuses the
//     problem (illegal configuration), it counts as `refused`.
//   model: the configuration with the lowest *predicted* time among the measured ones -- the
//     question a validation can answer (how well the model ranks what was run). The model's global
//     choice over its whole candidate space is usually not among the measured rows; with
//     ValidateOptions::model_global_search the report also says how often it was.
// Rows whose correctness check failed are excluded (counted); rows the model cannot predict
// (illegal configuration for the spec) are reported with the reason and excluded from the errors.
#pragma once

#include <string>
#include <vector>

#include "model/calibration.h"
#include "model/measurements.h"

namespace arlab::model {

struct ValidateOptions {
  std::string gpu_override;          // preset for every row (default: from each row's gpu name)
  bool model_global_search = false;  // also run the full model search per problem (slow)
  std::string source;                // the rows' file, named (file:line) by errors about a row
};

struct RowResult {
  size_t row = 0;          // index into the input rows
  std::string problem_id;  // short id of the problem group ("p17")
  bool predicted = false;
  double predicted_us = 0;
  double ape = 0;          // fraction
  std::string status;      // "ok", "failed_check", "not_predicted: ..."
};

struct PolicyRegret {
  std::string policy;
  int evaluated = 0;   // problems whose chosen configuration was measured
  int unmeasured = 0;  // problems whose chosen configuration was not measured
  int refused = 0;     // problems the policy refused (illegal)
  double mean = 0, median = 0, max = 0;  // regret fractions over the evaluated problems
  int zero_regret = 0; // evaluated problems where the policy picked the best measured configuration
};

struct ValidationReport {
  std::vector<RowResult> rows;
  int rows_used = 0, rows_failed_check = 0, rows_not_predicted = 0;
  int problems = 0;
  // Fractions, against each row's kernel_us: the headline (skew-free where the row records it).
  double mape = 0, median_ape = 0, p90_ape = 0, max_ape = 0;
  // The same against the max-over-ranks median, over the used rows whose headline is skew-free
  // (0 rows: nothing to add).
  int rows_with_skewfree = 0;
  double mape_max_over_ranks = 0, median_ape_max_over_ranks = 0;
  double spearman_all = 0;          // over all used rows
  double spearman_per_problem_mean = 0, spearman_per_problem_median = 0;
  int spearman_problems = 0;        // problems with >= 3 configurations and non-constant times
  std::vector<PolicyRegret> regrets;
  int model_global_in_measured = -1;  // with model_global_search: problems whose global choice was measured
  int model_global_search_failed = -1;  // with model_global_search: problems the search found no legal candidate for
};

ValidationReport validate_measurements(const std::vector<MeasuredRow>& rows, const Calibration& cal,
                                       const ValidateOptions& opts);

// Throws CsvError (at `source`'s first data line, or its header when it has none) when the report
// judged the model on no row: a header-only file, or every row failed its correctness check or is
// illegal for the model. Its figures would read as a perfect model (MAPE 0 % over nothing).
void require_usable_rows(const std::vector<MeasuredRow>& rows, const ValidationReport& report,
                         const std::string& source);

// Writes one validation-schema row (common/validation_schema.h) per input row.
void write_validation_csv(const std::vector<MeasuredRow>& rows, const ValidationReport& report,
                          const std::string& path);

}  // namespace arlab::model
