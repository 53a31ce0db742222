// The one definition of the speedup CSV schema (`arlab exp speedup`, issue 13): one row per
// (problem, kernel variant) from the experiment's measurement rows -- the reference kernel at the
// trtllm configuration (the peer library's kernel), the variant at the same configuration (the design
// alone) and at the model's choice for that variant (design and configuration) -- with the ratios and
// each time's distance to the problem's floor (experiments/speedup_summary.h says how the floor is
// defined), and, where the group measured them, arlab's best (model/auto) and the peer (FlashInfer). Written by experiments/speedup_summary.cpp; read by plots/plot_speedup.py by column name
// and by the CPU test that regenerates the committed summaries (tests/experiments).
// Every figure may be nan (no floor on one GPU; a row that was not timed).
#pragma once

#include <string>
#include <vector>

#include "common/csv.h"
#include "common/node_problem_columns.h"

// X(type, name, description[, default]) -- common/csv.h
#define ARLAB_SPEEDUP_COLUMNS(X)                                                                             \
  X(std::string, git_sha, "arlab commit of the measurement rows (the reference row's)")                     \
  ARLAB_NODE_PROBLEM_COLUMNS(X)                                                                             \
  X(std::string, variant, "kernel variant compared with the reference kernel")                              \
  X(DoubleOrNan, reference_us, "reference kernel at the trtllm configuration: headline median (us)")        \
  X(DoubleOrNan, reference_noise_pct, "its 95 % CI half-width, percent of the median")                      \
  X(DoubleOrNan, variant_trtllm_us, "the variant at the trtllm configuration: headline median (us)")        \
  X(DoubleOrNan, variant_model_us, "the variant at the model's choice: headline median (us)")               \
  X(DoubleOrNan, variant_model_noise_pct, "its 95 % CI half-width, percent of the median")                  \
  X(std::string, variant_model_config, "the model's choice for the variant: tpb/cluster/grid/vpt")          \
  X(DoubleOrNan, variant_model_predicted_us, "the model's prediction for that choice (us)")                 \
  X(DoubleOrNan, speedup_design, "reference_us / variant_trtllm_us: the kernel design alone")               \
  X(DoubleOrNan, speedup, "reference_us / variant_model_us: design and configuration (the issue's goal figure)") \
  X(std::string, floor_kind, "link (nvlink: (N-1) S one way at the calibrated link rate) or none (local)")  \
  X(DoubleOrNan, floor_us, "the problem's floor (us), see floor_kind; NaN where there is none")             \
  X(DoubleOrNan, reference_over_floor, "reference_us / floor_us")                                           \
  X(DoubleOrNan, variant_over_floor, "variant_model_us / floor_us")                                         \
  X(DoubleOrNan, best_us, "arlab's best: the model's pick over kernel bodies (model/auto): headline (us)")  \
  X(std::string, best_config, "its choice: tpb/cluster/grid/vpt/algo/body ('' where not measured)")          \
  X(DoubleOrNan, speedup_best, "reference_us / best_us: arlab's best against the reference")                \
  X(DoubleOrNan, peer_us, "FlashInfer at its own configuration and algorithm: headline (us)")                \
  X(DoubleOrNan, best_over_peer, "peer_us / best_us: arlab's best against the peer library")                \
  X(std::string, check, "pass when every row of the problem passed the correctness gate, else fail")

namespace arlab {

ARLAB_CSV_SCHEMA(ARLAB_SPEEDUP_COLUMNS, SpeedupRow, speedup_header)

}  // namespace arlab
