// Implementation of experiments/speedup_summary.h.
#include "experiments/speedup_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "common/csv_table.h"
#include "common/fmt.h"
#include "common/launch_config.h"
#include "common/measurement_headline.h"
#include "common/measurement_kernel.h"
#include "common/measurement_schema.h"
#include "common/problem.h"
#include "model/policies.h"

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

// Keys of the two per-problem members beside the variants: arlab's best and the peer library.
constexpr const char* kBestKey = "model/auto";
constexpr const char* kPeerKey = "flashinfer";

// The cells of one measurement row the summary needs.
struct Cells {
  std::string git_sha, gpu, topology, link, policy, variant, check, dtype, experiment, algo;
  int nranks = 0, hidden = 0, tokens = 0, tpb = 0, cluster = 0, grid = 0, vpt = 0;
  double headline_us = NAN, noise_pct = NAN, predicted_us = NAN;
};

// tpb/cluster/grid/vpt of a row, as the summary's configuration columns write it.
std::string shape_text(const Cells& c) {
  return std::to_string(c.tpb) + "/" + std::to_string(c.cluster) + "/" + std::to_string(c.grid) + "/" +
         std::to_string(c.vpt);
}

// The fused rows of experiment "speedup" (experiment cell "speedup/KEY") in `path`, read by the
// typed reader (every row checked, whatever its experiment).
std::vector<Cells> read_speedup_cells(const std::string& path) {
  const CsvRows<MeasurementRow> table = read_rows<MeasurementRow>(path);
  if (!table.has_column("kernel_variant"))
    throw CsvError(path, table.header_line, "kernel_variant",
                   "no column 'kernel_variant': the speedup summary needs a measurement CSV of an arlab with kernel "
                   "variants (this file was written before them)");
  std::vector<Cells> out;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const MeasurementRow& m = table.rows[i];
    const Impl kernel = at_row(path, table.lines[i], [&] { return row_kernel(m); });
    const double headline = at_row(path, table.lines[i], [&] { return headline_us(m); });
    if (m.experiment.rfind("speedup/", 0) != 0 || !is_kernel_body(kernel)) continue;
    Cells r;
    r.experiment = m.experiment;
    r.git_sha = m.git_sha;
    copy_node_problem_columns(r, m);
    // The model policy's rows: model/BODY (the search held to one body) or model/auto (arlab's best).
    r.policy = m.policy == model::to_string(model::Policy::model) && model::bodies_in_search_note(m.policy_note) > 1
                   ? std::string(kBestKey)
                   : m.policy;
    r.algo = m.algo;
    r.variant = to_string(kernel);
    r.check = m.check;
    r.dtype = m.dtype;
    r.tpb = m.tpb;
    r.cluster = m.cluster;
    r.grid = m.grid;
    r.vpt = m.vecs_per_thread;
    r.headline_us = headline;
    r.noise_pct = m.noise_pct;
    r.predicted_us = m.predicted_us;
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
    by_case[r.experiment][{r.policy, r.policy == kBestKey ? std::string() : r.variant}] = r;
  }
  std::vector<SpeedupRow> rows;
  for (const std::string& key : case_order) {
    const auto& group = by_case[key];
    const auto ref = group.find({"trtllm", to_string(Impl::reference)});
    if (ref == group.end()) continue;
    const Cells& a = ref->second;
    // arlab's best and the peer, where the group measured them (earlier runs did not).
    const auto best = group.find({kBestKey, std::string()});
    const auto peer = group.find({kPeerKey, to_string(Impl::flashinfer)});
    for (Impl v : arlab_bodies()) {
      if (v == Impl::reference) continue;
      const auto at_trtllm = group.find({"trtllm", to_string(v)});
      const auto at_model = group.find({"model", to_string(v)});
      if (at_trtllm == group.end() || at_model == group.end()) continue;
      const Cells& b = at_trtllm->second;
      const Cells& m = at_model->second;
      SpeedupRow r;
      r.git_sha = a.git_sha;
      copy_node_problem_columns(r, a);
      r.variant = to_string(v);
      r.reference_us = a.headline_us;
      r.reference_noise_pct = a.noise_pct;
      r.variant_trtllm_us = b.headline_us;
      r.variant_model_us = m.headline_us;
      r.variant_model_noise_pct = m.noise_pct;
      r.variant_model_config = shape_text(m);
      r.variant_model_predicted_us = m.predicted_us;
      r.speedup_design = a.headline_us / b.headline_us;
      r.speedup = a.headline_us / m.headline_us;
      // The floor of the row's own node: a link floor only for rows measured over NVLink (rank_spec
      // gives the link's bandwidth), none for the emulated node's, whatever spec the caller has.
      model::GpuSpec row_spec = rank_spec;
      if (a.link != to_string(model::LinkKind::nvlink)) row_spec.link = model::LinkKind::local;
      const Floor f = speedup_floor(a.nranks, a.hidden, a.tokens, dtype_bytes(parse_dtype(a.dtype)), row_spec, cal);
      r.floor_kind = f.kind;
      r.floor_us = f.us;
      r.reference_over_floor = a.headline_us / f.us;
      r.variant_over_floor = m.headline_us / f.us;
      r.best_us = r.speedup_best = r.peer_us = r.best_over_peer = std::nan("");
      bool others_pass = true;
      if (best != group.end()) {
        const Cells& x = best->second;
        r.best_us = x.headline_us;
        r.best_config = shape_text(x) + "/" + x.algo + "/" + x.variant;
        r.speedup_best = a.headline_us / x.headline_us;
        others_pass = others_pass && x.check == "pass";
      }
      if (peer != group.end()) {
        r.peer_us = peer->second.headline_us;
        others_pass = others_pass && peer->second.check == "pass";
        if (best != group.end()) r.best_over_peer = r.peer_us / r.best_us;
      }
      r.check = (a.check == "pass" && b.check == "pass" && m.check == "pass" && others_pass) ? "pass" : "fail";
      rows.push_back(r);
    }
  }
  return rows;
}

namespace {

// Count, geometric mean and minimum of one ratio column over the rows where it is finite (runs
// without that member leave it NaN); 0, 0, 0 where none is.
void finite_ratio_stats(const std::vector<SpeedupRow>& rows, double SpeedupRow::*column, int& count,
                        double& geomean, double& min) {
  double log_sum = 0;
  count = 0;
  min = INFINITY;
  for (const SpeedupRow& r : rows) {
    const double v = r.*column;
    if (!std::isfinite(v)) continue;
    ++count;
    log_sum += std::log(v);
    min = std::min(min, v);
  }
  geomean = count ? std::exp(log_sum / count) : 0.0;
  if (!count) min = 0;
}

}  // namespace

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
  finite_ratio_stats(rows, &SpeedupRow::speedup_best, g.best_problems, g.geomean_best, g.min_best);
  finite_ratio_stats(rows, &SpeedupRow::best_over_peer, g.peer_problems, g.geomean_over_peer, g.min_over_peer);
  return g;
}

std::string speedup_report(const std::vector<SpeedupRow>& rows) {
  std::string s = fmt("%-7s %-3s %6s %6s %-9s %10s %10s %10s %-14s %8s %8s %8s %8s %s\n", "link", "N", "H", "tokens",
                      "variant", "ref(us)", "v@trtllm", "v@model", "model cfg", "design", "speedup", "floor",
                      "v/floor", "check");
  std::map<std::tuple<std::string, std::string, int>, std::vector<SpeedupRow>> by_goal;  // (variant, link, N)
  for (const SpeedupRow& r : rows) {
    s += fmt("%-7s %-3d %6d %6d %-9s %10.3f %10.3f %10.3f %-14s %7.3fx %7.3fx %8.3f %7.2fx %s\n", r.link.c_str(),
             r.nranks, r.hidden, r.tokens, r.variant.c_str(), r.reference_us, r.variant_trtllm_us, r.variant_model_us,
             r.variant_model_config.c_str(), r.speedup_design, r.speedup, r.floor_us, r.variant_over_floor,
             r.check.c_str());
    by_goal[{r.variant, r.link, r.nranks}].push_back(r);
  }
  for (const auto& [which, group] : by_goal) {
    const SpeedupGoal g = speedup_goal(group);
    const auto& [variant, link, n] = which;
    s += fmt("GOAL %s on %s TP%d: geomean speedup %.3fx (design alone %.3fx) over %d problems, min %.3fx",
             variant.c_str(), link.c_str(), n, g.geomean, g.geomean_design, g.problems, g.min_speedup);
    s += group.front().floor_kind == "link"
             ? fmt("; at >= 128 tokens at most %.2fx the link floor\n", g.max_over_floor_at_128)
             : std::string("; no link floor on this node (one GPU)\n");
    if (g.best_problems > 0)
      s += fmt("GOAL best (model/auto) on %s TP%d: over the reference at trtllm geomean %.3fx, min %.3fx (%d problems)",
               link.c_str(), n, g.geomean_best, g.min_best, g.best_problems) +
           (g.peer_problems > 0 ? fmt("; over FlashInfer at its own configuration geomean %.3fx, min %.3fx (%d problems)",
                                      g.geomean_over_peer, g.min_over_peer, g.peer_problems)
                                : std::string()) +
           "\n";
  }
  return s;
}

}  // namespace arlab::exp
