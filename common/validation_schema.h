// The one definition of the validation CSV schema: one row per measured row judged by
// `arlab validate` (its measurement columns, the model's prediction and the error). Read by plots/
// by column name.
#pragma once

#include <string>
#include <vector>

#include "common/csv.h"

// X(type, name, description)
#define ARLAB_VALIDATION_COLUMNS(X)                                                                       \
  X(int, line, "line of the row in the measurement CSV (header = 1)")                                     \
  X(std::string, problem_id, "rows measuring the same problem on the same machine share it")              \
  X(std::string, gpu, "device name as recorded")                                                          \
  X(std::string, link, "local or nvlink")                                                                 \
  X(int, sm_per_rank, "SMs per rank")                                                                     \
  X(int, nranks, "ranks N")                                                                               \
  X(std::string, dtype, "bf16, fp16 or fp32")                                                             \
  X(std::string, pattern, "fused pattern name")                                                           \
  X(std::string, algo, "oneshot or twoshot")                                                              \
  X(std::string, acc, "pairwise or fp32_acc")                                                             \
  X(int, tokens, "tokens per call")                                                                       \
  X(int, hidden, "hidden size H")                                                                         \
  X(std::string, policy, "policy label of the measured row")                                              \
  X(int, tpb, "threads per block")                                                                        \
  X(int, cluster, "cluster size")                                                                         \
  X(int, grid, "blocks in the grid")                                                                      \
  X(int, vecs_per_thread, "16-byte vectors per thread per token")                                         \
  X(int, regs, "registers per thread")                                                                    \
  X(double, kernel_us_median, "measured kernel time (median over iterations), us")                        \
  X(std::optional<double>, predicted_us, "model prediction, us (empty when the model could not predict)") \
  X(std::optional<double>, ape_pct, "|predicted - measured| / measured x 100 (empty as above)")           \
  X(std::string, status, "ok, failed_check (excluded) or not_predicted: reason")

namespace arlab {

ARLAB_CSV_SCHEMA(ARLAB_VALIDATION_COLUMNS, ValidationRow, validation_header)

}  // namespace arlab
