// The one definition of the numerics CSV schema: one row per (N, dtype, accumulation, output) of
// `arlab numerics` (experiments/numerics.cpp), read by plots/plot_numerics.py by column name.
// Errors are of the reference's T-rounded output against the fp64 "exact" reference on the same
// inputs (docs/operation.md); ulps are ulps of the dtype, counted from the correctly rounded exact value.
#pragma once

#include <string>
#include <vector>

#include "common/csv.h"

// X(type, name, description)
#define ARLAB_NUMERICS_COLUMNS(X)                                                                    \
  X(std::string, experiment, "always 'numerics'")                                                    \
  X(std::string, git_sha, "arlab commit the binary was built from")                                  \
  X(std::string, date_utc, "UTC start time of the run, ISO 8601 (the same on every row of one run)") \
  X(unsigned long long, seed, "input seed (make_inputs)")                                            \
  X(std::string, distribution, "input distribution: normal, uniform or heavy_tailed")                \
  X(int, tokens, "tokens")                                                                           \
  X(int, hidden, "hidden size H")                                                                    \
  X(double, eps, "RMSNorm epsilon")                                                                  \
  X(int, nranks, "ranks N summed")                                                                   \
  X(std::string, dtype, "bf16, fp16 or fp32")                                                        \
  X(std::string, acc, "pairwise or fp32_acc")                                                        \
  X(std::string, output, "sum (the all-reduced sum), residual_out or norm_out")                      \
  X(long long, elements, "elements compared (finite exact values)")                                  \
  X(double, err_max_abs, "max |got - exact|, in the units of the data")                              \
  X(double, err_rel_rms, "sqrt(sum (got - exact)^2 / sum exact^2)")                                  \
  X(long long, err_max_ulp, "max distance in ulps of dtype from the correctly rounded exact value")  \
  X(double, err_mean_ulp, "mean of the same")                                                        \
  X(double, frac_correctly_rounded, "share of elements equal to the correctly rounded exact value")

namespace arlab {

ARLAB_CSV_SCHEMA(ARLAB_NUMERICS_COLUMNS, NumericsRow, numerics_header)

}  // namespace arlab
