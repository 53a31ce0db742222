// Implementation of experiments/speedup_summary.h.
#include "experiments/speedup_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <tuple>

#include "common/csv.h"
#include "common/fmt.h"
#include "common/launch_config.h"
#include "common/problem.h"

namespace arlab::exp {

std::string speedup_summary_path(const std::string& measurement_csv) {
  const std::string ext = ".csv";
  const bool has_ext = measurement_csv.size() >= ext.size() &&
                       measurement_csv.compare(measurement_csv.size() - ext.size(), ext.size(), ext) == 0;
  return (has_ext ? measurement_csv.substr(0, measurement_csv.size() - ext.size()) : measurement_csv) + "_summary.csv";
}

Floor speedup_floor(int nranks, int hidden, int tokens, int elem_bytes, const model::GpuSpec& spec,
                    const model::Calibration& cal) {
  const double s = static_cast<double>(tokens) * hidden * elem_bytes;  // one rank's input, bytes
  Floor f;
  if (spec.link == model::LinkKind::nvlink) {
    f.kind = "link";
    f.us = (nranks - 1) * s / (spec.link_gbps * cal.link_efficiency) / 1e3;  // GB/s = bytes/ns
  } else {
    f.kind = "none";  // one GPU: no link to cross, and L2 holds much of the traffic (no HBM bound holds)
    f.us = std::nan("");
  }
  return f;
}

namespace {

// The cells of one measurement row the summary needs, by column name.
struct Cells {
  std::string git_sha, gpu, topology, link, policy, variant, check, dtype, experiment;
  int nranks = 0, hidden = 0, tokens = 0, tpb = 0, cluster = 0, grid = 0, vpt = 0;
  double headline_us = NAN, noise_pct = NAN, predicted_us = NAN;
};

double number(const std::string& cell) {
  if (cell.empty()) return NAN;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() ? NAN : v;
}

std::vector<Cells> read_speedup_cells(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InvalidArgument("speedup summary: cannot read " + path);
  std::string line;
  if (!std::getline(in, line)) throw InvalidArgument("speedup summary: " + path + " is empty");
  const std::vector<std::string> header = csv_split(line);
  auto col = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw InvalidArgument("speedup summary: " + path + " has no column '" + name +
                            "' (a measurement CSV of an arlab with kernel variants is needed)");
    return static_cast<size_t>(it - header.begin());
  };
  const size_t c_exp = col("experiment"), c_sha = col("git_sha"), c_gpu = col("gpu"), c_topo = col("topology"),
               c_link = col("link"), c_n = col("nranks"), c_h = col("hidden"), c_t = col("tokens"),
               c_dtype = col("dtype"), c_pol = col("policy"), c_var = col("kernel_variant"), c_tpb = col("tpb"),
               c_cs = col("cluster"), c_grid = col("grid"), c_vpt = col("vecs_per_thread"),
               c_skew = col("skewfree_us_median"), c_kernel = col("kernel_us_median"), c_noise = col("noise_pct"),
               c_pred = col("predicted_us"), c_check = col("check"), c_impl = col("implementation");
  std::vector<Cells> out;
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> c = csv_split(line);
    if (c.size() != header.size()) continue;  // a row cut short
    if (c[c_exp].rfind("speedup/", 0) != 0 || c[c_impl] != "fused") continue;
    Cells r;
    r.experiment = c[c_exp];
    r.git_sha = c[c_sha];
    r.gpu = c[c_gpu];
    r.topology = c[c_topo];
    r.link = c[c_link];
    r.policy = c[c_pol];
    r.variant = c[c_var];
    r.check = c[c_check];
    r.dtype = c[c_dtype];
    r.nranks = std::atoi(c[c_n].c_str());
    r.hidden = std::atoi(c[c_h].c_str());
    r.tokens = std::atoi(c[c_t].c_str());
    r.tpb = std::atoi(c[c_tpb].c_str());
    r.cluster = std::atoi(c[c_cs].c_str());
    r.grid = std::atoi(c[c_grid].c_str());
    r.vpt = std::atoi(c[c_vpt].c_str());
    const double skew_free = number(c[c_skew]);
    r.headline_us = std::isfinite(skew_free) && skew_free > 0 ? skew_free : number(c[c_kernel]);
    r.noise_pct = number(c[c_noise]);
    r.predicted_us = number(c[c_pred]);
    out.push_back(r);
  }
  return out;
}

}  // namespace

std::vector<SpeedupRow> speedup_rows(const std::string& measurement_csv, const model::GpuSpec& rank_spec,
                                     const model::Calibration& cal) {
  // Rows by case (the experiment cell), then by (policy, variant); a re-measured case keeps its last rows.
  std::map<std::string, std::map<std::pair<std::string, std::string>, Cells>> by_case;
  std::vector<std::string> case_order;
  for (const Cells& r : read_speedup_cells(measurement_csv)) {
    if (!by_case.count(r.experiment)) case_order.push_back(r.experiment);
    by_case[r.experiment][{r.policy, r.variant}] = r;
  }
  std::vector<SpeedupRow> rows;
  for (const std::string& key : case_order) {
    const auto& group = by_case[key];
    const auto ref = group.find({"trtllm", to_string(Impl::reference)});
    if (ref == group.end()) continue;
    const Cells& a = ref->second;
    for (Impl v : kernel_bodies()) {
      if (v == Impl::reference) continue;
      const auto at_trtllm = group.find({"trtllm", to_string(v)});
      const auto at_model = group.find({"model", to_string(v)});
      if (at_trtllm == group.end() || at_model == group.end()) continue;
      const Cells& b = at_trtllm->second;
      const Cells& m = at_model->second;
      SpeedupRow r;
      r.git_sha = a.git_sha;
      r.gpu = a.gpu;
      r.topology = a.topology;
      r.link = a.link;
      r.nranks = a.nranks;
      r.hidden = a.hidden;
      r.tokens = a.tokens;
      r.variant = to_string(v);
      r.reference_us = a.headline_us;
      r.reference_noise_pct = a.noise_pct;
      r.variant_trtllm_us = b.headline_us;
      r.variant_model_us = m.headline_us;
      r.variant_model_noise_pct = m.noise_pct;
      r.variant_model_config = std::to_string(m.tpb) + "/" + std::to_string(m.cluster) + "/" +
                               std::to_string(m.grid) + "/" + std::to_string(m.vpt);
      r.variant_model_predicted_us = m.predicted_us;
      r.speedup_design = a.headline_us / b.headline_us;
      r.speedup = a.headline_us / m.headline_us;
      const Floor f = speedup_floor(a.nranks, a.hidden, a.tokens, dtype_bytes(parse_dtype(a.dtype)), rank_spec, cal);
      r.floor_kind = f.kind;
      r.floor_us = f.us;
      r.reference_over_floor = a.headline_us / f.us;
      r.variant_over_floor = m.headline_us / f.us;
      r.check = (a.check == "pass" && b.check == "pass" && m.check == "pass") ? "pass" : "fail";
      rows.push_back(r);
    }
  }
  return rows;
}

SpeedupGoal speedup_goal(const std::vector<SpeedupRow>& rows) {
  SpeedupGoal g;
  double log_sum = 0, log_design = 0;
  g.min_speedup = INFINITY;
  for (const SpeedupRow& r : rows) {
    ++g.problems;
    log_sum += std::log(r.speedup);
    log_design += std::log(r.speedup_design);
    g.min_speedup = std::min(g.min_speedup, r.speedup);
    if (r.tokens >= 128 && std::isfinite(r.variant_over_floor))
      g.max_over_floor_at_128 = std::max(g.max_over_floor_at_128, r.variant_over_floor);
  }
  if (g.problems == 0) return SpeedupGoal{};
  g.geomean = std::exp(log_sum / g.problems);
  g.geomean_design = std::exp(log_design / g.problems);
  return g;
}

std::string speedup_report(const std::vector<SpeedupRow>& rows) {
  std::string s = fmt("%-7s %-3s %6s %6s %-9s %10s %10s %10s %-14s %8s %8s %8s %8s %s\n", "link", "N", "H", "tokens",
                      "variant", "ref(us)", "v@trtllm", "v@model", "model cfg", "design", "speedup", "floor",
                      "v/floor", "check");
  std::map<std::pair<std::string, std::string>, std::vector<SpeedupRow>> by_goal;  // (variant, link)
  for (const SpeedupRow& r : rows) {
    s += fmt("%-7s %-3d %6d %6d %-9s %10.3f %10.3f %10.3f %-14s %7.3fx %7.3fx %8.3f %7.2fx %s\n", r.link.c_str(),
             r.nranks, r.hidden, r.tokens, r.variant.c_str(), r.reference_us, r.variant_trtllm_us, r.variant_model_us,
             r.variant_model_config.c_str(), r.speedup_design, r.speedup, r.floor_us, r.variant_over_floor,
             r.check.c_str());
    by_goal[{r.variant, r.link}].push_back(r);
  }
  for (const auto& [which, group] : by_goal) {
    const SpeedupGoal g = speedup_goal(group);
    s += fmt("GOAL %s on %s: geomean speedup %.3fx (design alone %.3fx) over %d problems, min %.3fx", which.first.c_str(),
             which.second.c_str(), g.geomean, g.geomean_design, g.problems, g.min_speedup);
    s += group.front().floor_kind == "link"
             ? fmt("; at >= 128 tokens at most %.2fx the link floor\n", g.max_over_floor_at_128)
             : std::string("; no link floor on this node (one GPU)\n");
  }
  return s;
}

}  // namespace arlab::exp
