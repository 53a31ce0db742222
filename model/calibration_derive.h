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

struct DerivedCalibration {
  Calibration calibration;
  std::vector<std::string> notes;  // one line per constant: value, the rows it came from, how
};

// `spec` is what one rank sees (its SM count, the datasheet HBM and link bandwidths the efficiencies
// are fractions of, its clock, and the link: local on the emulated node). Throws InvalidArgument
// naming the bench and metric when a row a constant needs is missing, and (check_ranges) when a
// derived value leaves its documented physical range.
DerivedCalibration derive_calibration(const std::vector<MicrobenchRow>& rows, const GpuSpec& spec);

// Reads a microbench.csv (common/microbench_schema.h, columns by name: common/csv_table.h). Throws
// CsvError naming file, line and column for a missing or unknown column, a cell that does not parse
// by its type, a bench that `arlab calibrate` does not run (microbench_names), a negative or
// non-finite value, and a file without rows.
std::vector<MicrobenchRow> load_microbench(const std::string& path);

}  // namespace arlab::model
