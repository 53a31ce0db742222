#include "cli/calibration_choice.h"

#include <cctype>
#include <filesystem>
#include <regex>

namespace arlab::cli {

namespace {

const char* node_label(NodeKind node) { return node == NodeKind::emulated ? "emulated" : "nvlink"; }

// The measured calibration file of a GPU family's node kind, where one is found ("" where not).
std::string measured_file(NodeKind node, const std::string& family) {
  const std::string file = family + "_" + node_label(node) + ".csv";
  for (const std::string& dir : {std::string(ARLAB_SOURCE_DIR), std::string(".")}) {
    const std::string path = dir + "/data/calibration/" + file;
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

std::string node_name(NodeKind node, const std::string& family) {
  std::string gpu = family;
  for (char& c : gpu) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return node == NodeKind::emulated ? "the emulated " + gpu + " node" : "the real " + gpu + " NVLink node";
}

}  // namespace

std::string calibration_option_help() {
  return "calibration CSV (name,value,unit,source); auto: the measured calibration of the node kind the command "
         "is about, its GPU and node (data/calibration/GPU_emulated.csv or GPU_nvlink.csv: h200_emulated.csv, "
         "h200_nvlink.csv, h100_emulated.csv), else the built-in priors; priors: the built-in priors";
}

CalibrationChoice choose_calibration(const std::string& given, NodeKind node, const std::string& gpu,
                                     const std::string& why) {
  if (given == kCalibrationPriors || given.empty()) return {"", "built-in priors (--calibration " + (given.empty() ? std::string("''") : given) + ")"};
  if (given != kCalibrationAuto) return {given, given + " (--calibration)"};
  if (node == NodeKind::none) return {"", "built-in priors (--calibration auto: " + why + ")"};
  if (gpu.empty())
    return {"", "built-in priors (--calibration auto: no GPU model such as H200 read from the name; " + why + ")"};
  const std::string path = measured_file(node, gpu);
  if (path.empty())
    return {"", "built-in priors (--calibration auto: no measured calibration of " + node_name(node, gpu) +
                    " found: data/calibration/" + gpu + "_" + node_label(node) + ".csv)"};
  return {path, path + " (--calibration auto: the measured calibration of " + node_name(node, gpu) + ")"};
}

model::Calibration load_choice(const CalibrationChoice& c) {
  return c.path.empty() ? model::default_calibration() : model::load_calibration(c.path);
}

CalibrationChoice calibration_for_rows(const std::string& given, const std::vector<model::MeasuredRow>& rows,
                                       const std::string& gpu_override) {
  bool local = false, nvlink = false;
  std::string family = rows.empty() ? "" : gpu_family(rows.front().gpu);
  for (const auto& r : rows) {
    (r.link == model::LinkKind::local ? local : nvlink) = true;
    if (gpu_family(r.gpu) != family) family.clear();
  }
  if (!gpu_override.empty()) family = gpu_family(gpu_override);
  if (rows.empty()) return choose_calibration(given, NodeKind::none, family, "the file has no rows of arlab's kernels");
  if (local && nvlink)
    return choose_calibration(given, NodeKind::none, family, "the rows mix the emulated and NVLink nodes");
  return choose_calibration(given, local ? NodeKind::emulated : NodeKind::nvlink, family,
                            gpu_override.empty() ? "the rows mix GPUs, or their gpu cell names none" : "--gpu " + gpu_override);
}

void choose_for_gpu(NodeKind node, session::RunPlan& plan, const std::string& gpu_name) {
  const CalibrationChoice c = choose_calibration(kCalibrationAuto, node, gpu_family(gpu_name), "the device is " + gpu_name);
  plan.calibration = load_choice(c);
  plan.calibration_source = c.text;
}

std::string gpu_family(const std::string& gpu) {
  // The model as a word of one letter and 2-3 digits: "NVIDIA H100 80GB HBM3" -> h100, "h200_sxm" -> h200.
  static const std::regex model(R"((^|[^A-Za-z0-9])([A-Za-z][0-9]{2,3})($|[^A-Za-z0-9]))");
  std::smatch m;
  if (!std::regex_search(gpu, m, model)) return "";
  std::string family = m[2].str();
  for (char& c : family) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return family;
}

}  // namespace arlab::cli
