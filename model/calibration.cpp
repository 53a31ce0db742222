// Calibration defaults, access by name, and the CSV round trip (common/csv_table.h on read).
#include "model/calibration.h"

#include <cmath>
#include <set>

#include "common/calibration_schema.h"
#include "common/csv.h"
#include "common/csv_table.h"
#include "common/output_file.h"
#include "common/problem.h"

namespace arlab::model {

Calibration default_calibration() { return Calibration{}; }

std::vector<CalibrationConstantInfo> calibration_constants() {
  std::vector<CalibrationConstantInfo> v;
#define ARLAB_CAL_INFO(name, def, lo, hi, unit, doc) v.push_back({#name, def, lo, hi, unit, doc});
  ARLAB_CALIBRATION_CONSTANTS(ARLAB_CAL_INFO)
#undef ARLAB_CAL_INFO
  return v;
}

namespace {
std::string known_names() {
  std::string s;
  for (const auto& c : calibration_constants()) s += (s.empty() ? "" : ", ") + c.name;
  return s;
}
}  // namespace

double get_constant(const Calibration& c, const std::string& name) {
#define ARLAB_CAL_GET(n, def, lo, hi, unit, doc) \
  if (name == #n) return c.n;
  ARLAB_CALIBRATION_CONSTANTS(ARLAB_CAL_GET)
#undef ARLAB_CAL_GET
  throw InvalidArgument("unknown calibration constant '" + name + "' (known: " + known_names() + ")");
}

void set_constant(Calibration& c, const std::string& name, double value) {
#define ARLAB_CAL_SET(n, def, lo, hi, unit, doc) \
  if (name == #n) {                      \
    c.n = value;                         \
    return;                              \
  }
  ARLAB_CALIBRATION_CONSTANTS(ARLAB_CAL_SET)
#undef ARLAB_CAL_SET
  throw InvalidArgument("unknown calibration constant '" + name + "' (known: " + known_names() + ")");
}

std::string range_violation(const CalibrationConstantInfo& info, double v) {
  if (std::isfinite(v) && v >= info.min_value && v <= info.max_value) return "";
  return info.name + " = " + csv_num(v) + " " + info.unit + " is outside its physical range [" +
         csv_num(info.min_value) + ", " + csv_num(info.max_value) + "] " + info.unit + " (model/calibration.h)";
}

void check_ranges(const Calibration& c) {
  for (const auto& info : calibration_constants()) {
    const std::string bad = range_violation(info, get_constant(c, info.name));
    if (!bad.empty()) throw InvalidArgument(bad);
  }
}

Calibration load_calibration(const std::string& path) {
  Calibration cal = default_calibration();
  const auto infos = calibration_constants();
  const CsvRows<CalibrationRow> table = read_rows<CalibrationRow>(path);
  // A header without rows would silently leave every built-in prior in place.
  if (table.rows.empty())
    throw CsvError(path, table.header_line, "name",
                   "no rows: a calibration file names at least one constant (known: " + known_names() + ")");
  std::set<std::string> seen;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const CalibrationRow& row = table.rows[i];
    const auto fail = [&](const std::string& column, const std::string& what) {
      throw CsvError(path, table.lines[i], column, what);
    };
    const CalibrationConstantInfo* info = nullptr;
    for (const auto& c : infos)
      if (c.name == row.name) info = &c;
    if (!info) fail("name", "unknown calibration constant '" + cut_for_message(row.name) + "' (known: " + known_names() + ")");
    if (!seen.insert(row.name).second) fail("name", "constant '" + row.name + "' appears twice");
    const std::string out_of_range = range_violation(*info, row.value);
    if (!out_of_range.empty()) fail("value", out_of_range);
    if (row.unit != info->unit)
      fail("unit", "unit '" + cut_for_message(row.unit) + "' of '" + row.name + "' differs from its documented unit '" +
                       info->unit + "'");
    set_constant(cal, row.name, row.value);
  }
  return cal;
}

void save_calibration(const Calibration& c, const std::string& path, const std::string& source) {
  check_ranges(c);
  write_csv_file(path, calibration_header(), [&](std::ostream& out) {
    for (const auto& info : calibration_constants())
      out << csv_join(to_cells(CalibrationRow{info.name, get_constant(c, info.name), info.unit, source, info.meaning}))
          << '\n';
  });
}

}  // namespace arlab::model
