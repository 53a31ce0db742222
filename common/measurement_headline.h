// The headline rule, in one place: which time of a measurement row (common/measurement_schema.h) is
// its headline -- the figure the noise target, the ratios, the model's validation, the experiments'
// summaries and the plots use (harness/timing.h Headline says why the skew-free figure). Its
// Python twin is plots/exp_common.py headline_us; keep the two alike.
//
// The row's `headline` column says which figure it is:
//   skew_free        skewfree_us_median (max_r(end) - max_r(start): the time from the last rank's start);
//   max_over_ranks   kernel_us_median (where the ranks share no clock the skew-free figure is undefined);
//   empty            an untimed row (both figures nan), or a file written before the column existed
//                    (data/h200: 36 columns, every row with a skew-free median): skewfree_us_median
//                    where it is a finite, positive number, else kernel_us_median -- how every reader
//                    took such rows before the column existed.
#pragma once

#include <cmath>
#include <string>

#include "common/csv_table.h"
#include "common/measurement_schema.h"

namespace arlab {

// The `headline` cells harness/timing.h to_string(Headline) writes.
constexpr const char* kHeadlineSkewFree = "skew_free";
constexpr const char* kHeadlineMaxOverRanks = "max_over_ranks";

// The physical range of a measured kernel time (kernel_us_median, skewfree_us_median), in us: from one
// step of the GPU's global timer on an H200 (`%globaltimer` advances in 32 ns steps: docs/measurement.md,
// "Resolution"; no median can be shorter, and the committed rows start at 4 us) to 10 s, far beyond
// any fused all-reduce (the committed rows reach 2 ms; every device wait times out at --timeout-ms,
// 2 s by default). A value outside it is a corrupt cell, and a relative error against it would print
// as hundreds of digits.
constexpr double kMinKernelUs = 0.032;
constexpr double kMaxKernelUs = 1e7;

// What is wrong with a kernel time of `us` microseconds ("" when it is in its physical range; nan is
// the caller's: an untimed row holds nan).
inline std::string kernel_time_problem(double us) {
  if (us >= kMinKernelUs && us <= kMaxKernelUs) return "";
  return "kernel time " + csv_num(us) + " us is outside its physical range [" + csv_num(kMinKernelUs) + ", " +
         csv_num(kMaxKernelUs) + "] us (one 32 ns step of the GPU timer to 10 s; common/measurement_headline.h)";
}

// The row's headline time in microseconds (nan when the row was not timed). Throws CsvCellError
// (column headline) for a cell that is none of the above; at_row adds the file and line.
inline double headline_us(const MeasurementRow& row) {
  if (row.headline == kHeadlineSkewFree) return row.skewfree_us_median;
  if (row.headline == kHeadlineMaxOverRanks) return row.kernel_us_median;
  if (!row.headline.empty())
    throw CsvCellError("headline", "unknown headline '" + cut_for_message(row.headline) + "' (expected " +
                                       kHeadlineSkewFree + ", " + kHeadlineMaxOverRanks + " or empty)");
  const double skew_free = row.skewfree_us_median;
  return std::isfinite(skew_free) && skew_free > 0 ? skew_free : row.kernel_us_median;
}

}  // namespace arlab
