// What a measurement row (common/measurement_schema.h) ran, from its `implementation` and
// `kernel_variant` cells, in one place: every reader of measurement rows asks row_kernel, so a
// change of those cells' vocabulary (one implementation-table name in place of the two) is a
// change here.
//
// Today: implementation is fused (arlab's fused kernel), unfused or nccl (the baselines:
// an all-reduce, then a separate norm kernel); kernel_variant is the fused one-shot kernel's body,
// reference or lean (files before the column ran the reference body: the schema's default).
// Baselines run the reference kernels: a baseline row naming another variant is refused.
#pragma once

#include <string>

#include "common/csv_table.h"
#include "common/launch_config.h"
#include "common/measurement_schema.h"

namespace arlab {

struct RowKernel {
  Implementation implementation = Implementation::fused;
  KernelVariant variant = KernelVariant::reference;
};

// The kernel a row ran. Throws CsvCellError naming the column for an unknown implementation or
// kernel variant (a cell too long to be a label is cut) and for a baseline with a non-reference
// variant; at_row (common/csv_table.h) adds the file and line.
inline RowKernel row_kernel(const MeasurementRow& row) {
  const auto label = [](const char* column, const std::string& text, auto parse) {
    try {
      if (text.size() > kMaxQuotedCellChars) throw InvalidArgument("'" + cut_for_message(text) + "' is not a valid label");
      return parse(text);
    } catch (const CsvCellError&) {
      throw;
    } catch (const InvalidArgument& e) {
      throw CsvCellError(column, e.what());
    }
  };
  RowKernel k;
  k.implementation = label("implementation", row.implementation, parse_implementation);
  k.variant = label("kernel_variant", row.kernel_variant, parse_kernel_variant);
  if (k.implementation != Implementation::fused && k.variant != KernelVariant::reference)
    throw CsvCellError("kernel_variant", std::string("kernel_variant ") + to_string(k.variant) + " with implementation " +
                                             to_string(k.implementation) + ": the baselines run the reference kernels");
  return k;
}

// The kernel's part of a row's label, "" for the reference kernel and "/lean" for the lean one (a
// policy label "trtllm/lean" names both, as `arlab run --kernel` and the ratios write them).
inline std::string variant_suffix(const RowKernel& k) {
  return k.variant == KernelVariant::reference ? std::string() : std::string("/") + to_string(k.variant);
}

}  // namespace arlab
