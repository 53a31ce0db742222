// What a measurement row (common/measurement_schema.h) ran, from its `implementation` and
// `kernel_variant` cells, in one place: the row of the implementation table
// (common/implementations.h) whose CSV labels they are. Every reader of measurement rows asks
// row_kernel.
#pragma once

#include <string>

#include "common/csv_table.h"
#include "common/implementations.h"
#include "common/measurement_schema.h"

namespace arlab {

// The implementation a row ran. Throws CsvCellError naming the column: kernel_variant when that cell
// is no kernel body's label, else implementation when the pair is no row's; at_row
// (common/csv_table.h) adds the file and line.
inline Impl row_kernel(const MeasurementRow& row) {
  bool variant_known = false;
  for (const ImplRow& r : implementation_table()) variant_known = variant_known || row.kernel_variant == r.csv_kernel_variant;
  try {
    return implementation_from_csv(row.implementation, row.kernel_variant);
  } catch (const InvalidArgument& e) {
    throw CsvCellError(variant_known ? "implementation" : "kernel_variant", e.what());
  }
}

// The kernel's part of a row's label, "" for the reference body and "/lean" for the lean one (a
// policy label "trtllm/lean" names both, as `arlab run --kernel` and the ratios write them).
inline std::string variant_suffix(Impl ran) {
  return is_kernel_body(ran) && ran != Impl::reference ? std::string("/") + to_string(ran) : std::string();
}

}  // namespace arlab
