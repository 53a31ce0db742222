#include "cli/calibration_choice.h"

#include <filesystem>

namespace arlab::cli {

namespace {

// The measured calibration file of a node kind, where one is found ("" where not).
std::string measured_file(NodeKind node) {
  const std::string file = node == NodeKind::emulated ? "h200_emulated.csv" : "h200_nvlink.csv";
  for (const std::string& dir : {std::string(ARLAB_SOURCE_DIR), std::string(".")}) {
    const std::string path = dir + "/data/calibration/" + file;
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

const char* node_name(NodeKind node) {
  return node == NodeKind::emulated ? "the emulated H200 node" : "the real H200 NVLink node";
}

}  // namespace

std::string calibration_option_help() {
  return "calibration CSV (name,value,unit,source); auto: the measured calibration of the node kind the command "
         "is about (data/calibration/h200_emulated.csv or h200_nvlink.csv), else the built-in priors; priors: the "
         "built-in priors";
}

CalibrationChoice choose_calibration(const std::string& given, NodeKind node, bool h200, const std::string& why) {
  if (given == kCalibrationPriors || given.empty()) return {"", "built-in priors (--calibration " + (given.empty() ? std::string("''") : given) + ")"};
  if (given != kCalibrationAuto) return {given, given + " (--calibration)"};
  if (node == NodeKind::none) return {"", "built-in priors (--calibration auto: " + why + ")"};
  if (!h200)
    return {"", "built-in priors (--calibration auto: the measured calibrations are an H200's; " + why + ")"};
  const std::string path = measured_file(node);
  if (path.empty())
    return {"", std::string("built-in priors (--calibration auto: no measured calibration of ") + node_name(node) +
                    " found)"};
  return {path, path + " (--calibration auto: the measured calibration of " + node_name(node) + ")"};
}

model::Calibration load_choice(const CalibrationChoice& c) {
  return c.path.empty() ? model::default_calibration() : model::load_calibration(c.path);
}

CalibrationChoice calibration_for_rows(const std::string& given, const std::vector<model::MeasuredRow>& rows,
                                       const std::string& gpu_override) {
  bool local = false, nvlink = false, h200 = !rows.empty();
  for (const auto& r : rows) {
    (r.link == model::LinkKind::local ? local : nvlink) = true;
    h200 = h200 && is_h200_name(r.gpu);
  }
  if (!gpu_override.empty()) h200 = is_h200_name(gpu_override);
  if (rows.empty()) return choose_calibration(given, NodeKind::none, h200, "the file has no rows of arlab's kernels");
  if (local && nvlink)
    return choose_calibration(given, NodeKind::none, h200, "the rows mix the emulated and NVLink nodes");
  return choose_calibration(given, local ? NodeKind::emulated : NodeKind::nvlink, h200, "the rows' GPU is not an H200");
}

bool is_h200_name(const std::string& gpu) {
  return gpu.find("H200") != std::string::npos || gpu.find("h200") != std::string::npos;
}

}  // namespace arlab::cli
