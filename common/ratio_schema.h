// The one definition of the ratio CSV schema: one row per pair of configurations measured
// interleaved in one process (harness/timing.h), the headline median of the numerator over that of
// the denominator with a paired-round bootstrap 95 % confidence interval. Written by `arlab seed`
// (ratios.csv) and `arlab run --ratios-csv`; read by plots/ and the README's tables by column name.
#pragma once

#include <string>
#include <vector>

#include "common/csv.h"

// X(type, name, description)
#define ARLAB_RATIO_COLUMNS(X)                                                                   \
  X(std::string, experiment, "experiment that measured the pair")                                \
  X(std::string, git_sha, "arlab commit the binary was built from")                              \
  X(std::string, date_utc, "UTC time of the measurement, ISO 8601")                              \
  X(std::string, group_id, "the measurement rows' group_id (common/measurement_schema.h)")        \
  X(std::string, gpu, "device name as the driver reports it")                                    \
  X(std::string, topology, "emulated or mpi")                                                    \
  X(std::string, link, "local, nvlink, pcie or unknown")                                         \
  X(int, nranks, "ranks N")                                                                      \
  X(std::string, dtype, "bf16, fp16 or fp32")                                                    \
  X(std::string, pattern, "fused pattern name")                                                  \
  X(int, tokens, "tokens per call")                                                              \
  X(int, hidden, "hidden size H")                                                                \
  X(std::string, numerator, "policy label of the numerator (its tpb/cluster/grid in the _cfg column)") \
  X(std::string, numerator_cfg, "tpb/cluster/grid/vpt/algo of the numerator")                    \
  X(std::string, denominator, "policy label of the denominator")                                 \
  X(std::string, denominator_cfg, "tpb/cluster/grid/vpt/algo of the denominator")                \
  X(std::string, figure, "max_over_ranks or skew_free (the headline of the measurement issue)")  \
  X(double, ratio, "median(numerator) / median(denominator)")                                    \
  X(double, ci_lo, "lower bound of the 95 % bootstrap confidence interval")                      \
  X(double, ci_hi, "upper bound of the same")                                                    \
  X(int, rounds, "interleaved rounds both were measured in")

namespace arlab {

ARLAB_CSV_SCHEMA(ARLAB_RATIO_COLUMNS, RatioRow, ratio_header)

}  // namespace arlab
