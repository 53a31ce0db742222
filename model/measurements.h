// Measured rows as validate / fit need them: read from the measurement CSV
// (common/measurement_schema.h) by column name through common/csv_table.h read_rows (files of every
// generation; unknown columns refused), every bad cell reported with file, line and column. Also:
// the GpuSpec a row was measured on, and the problem key rows are grouped by.
#pragma once

#include <map>
#include <limits>
#include <string>
#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "model/gpu_spec.h"
#include "model/legality.h"

namespace arlab::model {

struct MeasuredRow {
  int line = 0;              // line in the CSV (header = 1); 0 for rows made in memory
  std::string gpu;           // device name as recorded (or a preset name)
  LinkKind link = LinkKind::nvlink;
  int sm_per_rank = 0;
  Problem problem;           // problem.algo = the algorithm the row ran
  LaunchConfig config;
  KernelResources resources; // regs from the row; shared memory assumed 0 (not recorded)
  std::string policy;        // the policy label the row was recorded under
  bool check_passed = true;  // correctness gate verdict ("pass")
  // The time the model is judged against: the row's headline figure (common/measurement_headline.h:
  // skewfree_us_median or kernel_us_median, as the row's headline column says).
  double kernel_us = 0;
  double max_over_ranks_us = 0;                                   // kernel_us_median
  double skewfree_us = std::numeric_limits<double>::quiet_NaN();  // skewfree_us_median; NaN when absent
};

// Every cell is parsed by its schema type (a file without an optional column reads its default);
// used: gpu, link, sm_per_rank, nranks, dtype, pattern, algo, acc, tokens, hidden, policy, tpb,
// cluster, grid, vecs_per_thread, pdl, regs, check, kernel_us_median, skewfree_us_median, headline,
// implementation and kernel_variant (common/measurement_kernel.h: baseline rows are skipped; the
// variant becomes config.impl). Throws CsvError naming file, line and column.
std::vector<MeasuredRow> read_measurements(const std::string& csv_path);

// Writes rows in the measurement schema (the columns this module knows; others empty), e.g. for
// synthetic data. `experiment` and `timing_source` label the rows. The file is replaced atomically
// (common/output_file.h), and only when it is new or already holds the measurement schema.
void write_measurements(const std::vector<MeasuredRow>& rows, const std::string& csv_path,
                        const std::string& experiment, const std::string& timing_source);
// The same rows appended to a measurement file (created when absent; common/csv.h CsvAppender).
void append_measurements(const std::vector<MeasuredRow>& rows, const std::string& csv_path,
                         const std::string& experiment, const std::string& timing_source);
// Rows of a measurement file whose timing_source differs from `timing_source` (e.g. measured rows
// in a file that model-generated rows would be added to). Throws CsvError like read_measurements.
int rows_with_other_timing_source(const std::string& csv_path, const std::string& timing_source);

// The spec a row ran on: the preset named by `gpu_override` or matching the row's gpu name; the
// whole GPU when sm_per_rank equals its SM count, else an emulated partition of sm_per_rank SMs;
// link as recorded. Throws, when no preset matches or the partition is impossible, a CsvError at
// the row's line in `source` (the rows' file), or InvalidArgument naming the line when source is "".
GpuSpec spec_for_row(const MeasuredRow& row, const std::string& gpu_override, const std::string& source = "");

// Memoizes spec_for_row per (gpu, sm_per_rank, nranks, link) -- one lookup per row is cheap.
class SpecCache {
 public:
  explicit SpecCache(std::string gpu_override, std::string source = "")
      : override_(std::move(gpu_override)), source_(std::move(source)) {}
  const GpuSpec& get(const MeasuredRow& row);

 private:
  std::string override_;
  std::string source_;
  std::map<std::string, GpuSpec> specs_;
};

// Rows measuring the same problem on the same machine share this key (configuration excluded).
std::string problem_key(const MeasuredRow& row);

}  // namespace arlab::model
