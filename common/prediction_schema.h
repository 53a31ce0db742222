// The one definition of the prediction CSV schema written by `arlab predict --csv`: tidy, one row
// per (policy, term) of a predicted configuration, so every term of every policy can be plotted or
// pivoted by column name. The row's predicted_us is the configuration's total; term_us sums to it.
#pragma once

#include <string>
#include <vector>

#include "common/csv.h"

// X(type, name, description)
#define ARLAB_PREDICTION_COLUMNS(X)                                                       \
  X(std::string, gpu, "GpuSpec name (preset, or preset/Nsm for an emulated rank)")        \
  X(std::string, link, "local or nvlink")                                                 \
  X(int, sm_per_rank, "SMs the rank uses")                                                \
  X(int, nranks, "ranks N")                                                               \
  X(std::string, dtype, "bf16, fp16 or fp32")                                             \
  X(std::string, pattern, "fused pattern name")                                           \
  X(std::string, acc, "pairwise or fp32_acc")                                             \
  X(int, tokens, "tokens per call")                                                       \
  X(int, hidden, "hidden size H")                                                         \
  X(std::string, policy, "legacy, trtllm, occupancy, model or explicit")                  \
  X(std::string, algo, "algorithm of the configuration (the model policy may switch it)") \
  X(int, tpb, "threads per block")                                                        \
  X(int, cluster, "cluster size")                                                         \
  X(int, grid, "blocks in the grid")                                                      \
  X(int, vecs_per_thread, "16-byte vectors per thread per token")                         \
  X(int, regs, "registers per thread assumed")                                            \
  X(double, predicted_us, "predicted kernel time of the configuration, us")               \
  X(std::string, term, "term name (model/timing_model.h)")                                \
  X(double, term_us, "the term's contribution, us")                                       \
  X(std::string, explanation, "the term's formula with its numbers")

namespace arlab {

ARLAB_CSV_SCHEMA(ARLAB_PREDICTION_COLUMNS, PredictionRow, prediction_header)

}  // namespace arlab
