// Calibration defaults, access by name, and the CSV round trip (fast-cpp-csv-parser on read).
#include "model/calibration.h"

#include <cmath>
#include <set>

#include "common/calibration_schema.h"
#include "common/csv.h"
#include "common/output_file.h"
#include "common/problem.h"
#include "model/csv_read.h"

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
  CsvColumns<3> csv(path, "name", "value", "unit");
  std::set<std::string> seen;
  while (csv.next()) {
    const std::string& name = csv.text(0);
    const CalibrationConstantInfo* info = nullptr;
    for (const auto& i : infos)
      if (i.name == name) info = &i;
    if (!info)
      csv.fail(0, "unknown calibration constant '" + cut_for_message(name) + "' (known: " + known_names() + ")");
    if (!seen.insert(name).second) csv.fail(0, "constant '" + name + "' appears twice");
    const double v = csv.number(1);
    const std::string out_of_range = range_violation(*info, v);
    if (!out_of_range.empty()) csv.fail(1, out_of_range);
    if (csv.text(2) != info->unit)
      csv.fail(2, "unit '" + cut_for_message(csv.text(2)) + "' of '" + name + "' differs from its documented unit '" +
                      info->unit + "'");
    set_constant(cal, name, v);
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
