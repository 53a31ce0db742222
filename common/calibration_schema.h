// The one definition of the calibration CSV schema (long format, one constant per row): written by
// `arlab fit` and model::save_calibration, read by model::load_calibration (common/csv_table.h, by
// column name; source and meaning are documentation and may be absent) and by plots/. The
// constants themselves are listed, with units and meaning, in model/calibration.h.
#pragma once

#include <string>
#include <vector>

#include "common/csv.h"

// X(type, name, description[, default]) -- common/csv.h
#define ARLAB_CALIBRATION_COLUMNS(X)                                                    \
  X(std::string, name, "constant name (model/calibration.h), unit in the name")         \
  X(double, value, "value in `unit`")                                                   \
  X(std::string, unit, "unit of value; must equal the documented unit when read")       \
  X(std::string, source, "where the value came from: default prior, fit (data, split)", "") \
  X(std::string, meaning, "what the constant is (documentation; ignored when read)", "")

namespace arlab {

ARLAB_CSV_SCHEMA(ARLAB_CALIBRATION_COLUMNS, CalibrationRow, calibration_header)

}  // namespace arlab
