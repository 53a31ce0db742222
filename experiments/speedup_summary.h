// `arlab exp speedup`'s summary (issue 13): from the experiment's measurement rows, one
// common/speedup_schema.h row per (problem, kernel variant), the goal's figures (the geometric mean
// of the speedups, the smallest one, the largest distance to the floor at >= 128 tokens) and the
// table printed after the run. Pure C++ (no GPU): `scripts/figures.sh` redraws from committed CSVs.
//
// The floor of a problem (S = tokens x H x sizeof(T), one rank's input):
//   nvlink  each rank must send (N-1) S one way over its links: (N-1) S / (link_gbps x
//           link_efficiency) -- the GPU's link rate (model/gpu_spec.h) times the calibrated fraction
//           the link achieves (model/calibration.h, `arlab calibrate`'s link bench);
//   local   (the emulated node) none: no link is crossed, and no HBM bound holds either -- L2 (50 MB
//           on an H200) keeps much of one call's traffic, so measured times fall below any byte count
//           over HBM bandwidth. floor_kind "none", floor_us NaN.
#pragma once

#include <string>
#include <vector>

#include "common/speedup_schema.h"
#include "model/calibration.h"
#include "model/gpu_spec.h"

namespace arlab::exp {

// Where the summary of measurement CSV X.csv goes: X_summary.csv (plots/plot_speedup.py reads it there).
std::string speedup_summary_path(const std::string& measurement_csv);

// The problem's floor (us) and its kind ("link" or "hbm"), as the file comment defines them.
struct Floor {
  std::string kind;
  double us = 0;
};
Floor speedup_floor(int nranks, int hidden, int tokens, int elem_bytes, const model::GpuSpec& spec,
                    const model::Calibration& cal);

// One row per (problem, non-reference variant) of the rows of experiment "speedup" in
// `measurement_csv` (rows "speedup/KEY": policy trtllm with kernel_variant reference, trtllm with
// the variant, model with the variant); problems with a missing row are left out. A row's time is its
// headline (common/measurement_headline.h). The file is read by common/csv_table.h: CsvError naming
// file, line and column for any bad row (a row cut short included), and for a measurement CSV
// without the kernel_variant column.
std::vector<SpeedupRow> speedup_rows(const std::string& measurement_csv, const model::GpuSpec& rank_spec,
                                     const model::Calibration& cal);

// The goal's figures over rows of one variant and link.
struct SpeedupGoal {
  int problems = 0;
  double geomean = 0;          // geometric mean of speedup
  double min_speedup = 0;
  double geomean_design = 0;   // geometric mean of speedup_design
  double max_over_floor_at_128 = 0;  // largest finite variant_over_floor at tokens >= 128 (0: none)
  // arlab's best (model/auto) over the rows that measured it: against the reference and the peer.
  int best_problems = 0;
  double geomean_best = 0, min_best = 0;
  int peer_problems = 0;
  double geomean_over_peer = 0, min_over_peer = 0;
};
SpeedupGoal speedup_goal(const std::vector<SpeedupRow>& rows);

// The printed table (one line per row) and one goal line per (variant, link).
std::string speedup_report(const std::vector<SpeedupRow>& rows);

}  // namespace arlab::exp
