// Calibration defaults, access by name, and the CSV round trip (fast-cpp-csv-parser on read).
#include "model/calibration.h"

#include <cmath>
#include <fstream>
#include <set>

#include "common/calibration_schema.h"
#include "common/csv.h"
#include "common/problem.h"
#include "model/csv_read.h"

namespace arlab::model {

Calibration default_calibration() { return Calibration{}; }

std::vector<CalibrationConstantInfo> calibration_constants() {
  std::vector<CalibrationConstantInfo> v;
#define ARLAB_CAL_INFO(name, def, unit, doc) v.push_back({#name, def, unit, doc});
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
#define ARLAB_CAL_GET(n, def, unit, doc) \
  if (name == #n) return c.n;
  ARLAB_CALIBRATION_CONSTANTS(ARLAB_CAL_GET)
#undef ARLAB_CAL_GET
  throw InvalidArgument("unknown calibration constant '" + name + "' (known: " + known_names() + ")");
}

void set_constant(Calibration& c, const std::string& name, double value) {
#define ARLAB_CAL_SET(n, def, unit, doc) \
  if (name == #n) {                      \
    c.n = value;                         \
    return;                              \
  }
  ARLAB_CALIBRATION_CONSTANTS(ARLAB_CAL_SET)
#undef ARLAB_CAL_SET
  throw InvalidArgument("unknown calibration constant '" + name + "' (known: " + known_names() + ")");
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
    if (!info) csv.fail(0, "unknown calibration constant '" + name + "' (known: " + known_names() + ")");
    if (!seen.insert(name).second) csv.fail(0, "constant '" + name + "' appears twice");
    const double v = csv.number(1);
    if (v < 0) csv.fail(1, "value " + csv.text(1) + " of '" + name + "' must be >= 0");
    if (csv.text(2) != info->unit)
      csv.fail(2, "unit '" + csv.text(2) + "' of '" + name + "' differs from its documented unit '" + info->unit + "'");
    set_constant(cal, name, v);
  }
  return cal;
}

void save_calibration(const Calibration& c, const std::string& path, const std::string& source) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw InvalidArgument("cannot open calibration file " + path + " for writing");
  out << csv_join(calibration_header()) << '\n';
  for (const auto& info : calibration_constants())
    out << csv_join(to_cells(CalibrationRow{info.name, get_constant(c, info.name), info.unit, source, info.meaning}))
        << '\n';
  if (!out) throw InvalidArgument("write to calibration file " + path + " failed");
}

}  // namespace arlab::model
