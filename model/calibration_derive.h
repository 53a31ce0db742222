// From microbenchmark rows (common/microbench_schema.h, written by `arlab calibrate`) to the timing
// model's constants (model/calibration.h): each constant is set from the bench that measures it
// (calibrate/README.md), never fitted to fused-kernel timings. Pure C++, unit-tested on the CPU.
#pragma once

#include <string>
#include <vector>

#include "common/microbench_schema.h"
#include "model/calibration.h"
#include "model/gpu_spec.h"

namespace arlab::model {

// The rows a constant is derived from: bench, variant ("lamport*": every variant starting so) and metric.
struct MicrobenchQuery {
  std::string bench, variant, metric;
};

// A constant that cannot be derived: no row for it (rows_exist false), or rows that give no line or a
// value outside the constant's physical range (rows_exist true). `rows` says which rows, so the
// caller that read them can name the file and line (cli/cli_model.cpp).
struct DeriveError : InvalidArgument {
  DeriveError(const std::string& what, MicrobenchQuery query, bool exist)
      : InvalidArgument(what), rows(std::move(query)), rows_exist(exist) {}
  MicrobenchQuery rows;
  bool rows_exist;
};

struct DerivedCalibration {
  Calibration calibration;
  std::vector<std::string> notes;  // one line per constant: value, the rows it came from, how
};

// `spec` is what one rank sees (its SM count, the datasheet HBM and link bandwidths the efficiencies
// are fractions of, its clock, and the link: local on the emulated node). Throws DeriveError naming
// the bench, variant and metric when a row a constant needs is missing, when its rows give no line,
// and when a derived value leaves its documented physical range (model/calibration.h).
DerivedCalibration derive_calibration(const std::vector<MicrobenchRow>& rows, const GpuSpec& spec);

// Reads a microbench.csv (common/microbench_schema.h, columns by name: common/csv_table.h). Throws
// CsvError naming file, line and column for a missing or unknown column, a cell that does not parse
// by its type, a bench that `arlab calibrate` does not run (microbench_names), a file without rows,
// and a cell outside what one run of `arlab calibrate` writes: a provenance cell (git_sha, date_utc,
// gpu, topology, link, nranks, sm_per_rank) that differs from the first row's (one file holds one
// run), an unknown link or topology, a link that does not fit the topology (local: emulated), nranks
// outside [2, 16], sm_per_rank < 1, a rank outside [-1, nranks), a negative sms / tpb / cluster /
// size, reps < 1, and a value, p10 or p90 that is negative or outside kMicrobenchValueRange.
// `lines` (when given) receives each row's 1-based line.
std::vector<MicrobenchRow> load_microbench(const std::string& path, std::vector<int>* lines = nullptr);

// The range of a nonzero measured figure (value, p10, p90) in its metric's unit (us, ns, GB/s, ns per
// op): six orders of magnitude either side of what `arlab calibrate` measured on the H200s (0.04 to
// 4.5e3 in data/calibration/*_microbench.csv), so only a corrupt cell is refused. 0 is allowed.
constexpr double kMicrobenchMinValue = 1e-8;
constexpr double kMicrobenchMaxValue = 1e10;

}  // namespace arlab::model
