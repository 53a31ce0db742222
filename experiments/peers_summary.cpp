// `arlab exp peers`'s summary (experiments/peers_summary.h).
#include "experiments/peers_summary.h"

#include "experiments/exp_csv.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include "common/csv_table.h"
#include "common/fmt.h"
#include "common/measurement_headline.h"
#include "common/measurement_kernel.h"
#include "common/measurement_schema.h"
#include "common/ratio_schema.h"
#include "model/policies.h"

namespace arlab::exp {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A row's label as the ratio rows write it (harness/measurement.cpp ratio_row): the policy and, for a
// kernel body other than the reference, "/BODY".
std::string label_of(const MeasurementRow& r) { return r.policy + variant_suffix(row_kernel(r)); }

// The member a row is in the summary: its label, but the model policy's rows (the case's "model/auto"
// member, whose label names the body it picked: model, model/lean) are all "model/auto", arlab's best.
std::string member_of(const MeasurementRow& r) {
  return r.policy == std::string(model::to_string(model::Policy::model)) ? std::string(kBestMember) : label_of(r);
}

// tpb/cluster/grid/vpt/algo (+ "/BODY"), as the ratio rows' _cfg columns write it.
std::string config_of(const MeasurementRow& r) {
  return std::to_string(r.tpb) + "/" + std::to_string(r.cluster) + "/" + std::to_string(r.grid) + "/" +
         std::to_string(r.vecs_per_thread) + "/" + r.algo + variant_suffix(row_kernel(r));
}

}  // namespace

std::string peers_summary_path(const std::string& measurement_csv) {
  const std::filesystem::path p(measurement_csv);
  return (p.parent_path() / (p.stem().string() + "_summary.csv")).string();
}

std::vector<PeersRow> peers_rows(const std::string& measurement_csv) {
  const CsvRows<MeasurementRow> table = read_rows<MeasurementRow>(measurement_csv);
  // Ratio rows by (group, numerator label, numerator configuration), over the group's first member.
  std::map<std::tuple<std::string, std::string, std::string>, RatioRow> ratios;
  const std::string ratio_file = ratios_path_of(measurement_csv);
  if (std::filesystem::exists(ratio_file)) {
    const CsvRows<RatioRow> rt = read_rows<RatioRow>(ratio_file);
    for (const RatioRow& r : rt.rows)
      if (r.denominator == kFlashinferMember) ratios[{r.group_id, r.numerator, r.numerator_cfg}] = r;
  }
  // The rows of each group (one case's interleaved group), in file order.
  std::map<std::string, std::vector<size_t>> groups;
  std::vector<std::string> order;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const MeasurementRow& m = table.rows[i];
    if (m.experiment.rfind("peers/", 0) != 0) continue;
    at_row(measurement_csv, table.lines[i], [&] { return row_kernel(m); });  // every label checked
    if (!groups.count(m.group_id)) order.push_back(m.group_id);
    groups[m.group_id].push_back(i);
  }
  std::vector<PeersRow> out;
  for (const std::string& g : order) {
    const std::vector<size_t>& idx = groups[g];
    const MeasurementRow* fi = nullptr;
    for (size_t i : idx)
      if (label_of(table.rows[i]) == kFlashinferMember) fi = &table.rows[i];
    if (fi == nullptr) continue;
    const double fi_us = at_row(measurement_csv, table.lines[idx.front()], [&] { return headline_us(*fi); });
    for (size_t i : idx) {
      const MeasurementRow& m = table.rows[i];
      if (&m == fi) continue;
      PeersRow r;
      r.git_sha = m.git_sha;
      copy_node_problem_columns(r, m);
      r.acc = m.acc;
      r.member = member_of(m);
      r.implementation = m.implementation;
      r.kernel_variant = m.kernel_variant;
      r.config = config_of(m);
      r.member_us = at_row(measurement_csv, table.lines[i], [&] { return headline_us(m); });
      r.flashinfer_implementation = fi->implementation;
      r.flashinfer_us = fi_us;
      r.flashinfer_config = config_of(*fi);
      r.speedup = fi_us / r.member_us;
      r.speedup_ci_lo = r.speedup_ci_hi = kNaN;
      const auto it = ratios.find({g, label_of(m), r.config});
      if (it != ratios.end() && it->second.ci_lo > 0 && it->second.ci_hi > 0) {
        // The ratio row is member / FlashInfer: its CI inverted is the speedup's.
        r.speedup_ci_lo = 1.0 / it->second.ci_hi;
        r.speedup_ci_hi = 1.0 / it->second.ci_lo;
      }
      r.member_max_us = m.kernel_us_median;
      r.member_start_skew_us = m.start_skew_us_median;
      r.flashinfer_max_us = fi->kernel_us_median;
      r.flashinfer_start_skew_us = fi->start_skew_us_median;
      r.check = m.check;
      r.norm_max_ulp = m.norm_max_ulp;
      r.quant_nonexact = m.quant_nonexact;
      r.flashinfer_check = fi->check;
      r.flashinfer_norm_max_ulp = fi->norm_max_ulp;
      r.flashinfer_quant_nonexact = fi->quant_nonexact;
      out.push_back(r);
    }
  }
  return out;
}

std::string peers_report(const std::vector<PeersRow>& rows) {
  std::ostringstream os;
  os << fmt("%-7s %2s %6s %6s %-16s %-22s %10s %10s %8s %-17s %-13s %-6s %s\n", "link", "N", "H", "tokens", "member",
            "config", "member_us", "fi_us", "speedup", "95% CI", "skew m/fi us", "check", "flashinfer gate");
  for (const PeersRow& r : rows)
    os << fmt("%-7s %2d %6d %6d %-16s %-22s %10.3f %10.3f %7.3fx [%.3f, %.3f] %6.2f/%-6.2f %-6s %s, norm %d ulp\n",
              r.link.c_str(), r.nranks, r.hidden, r.tokens, r.member.c_str(), r.config.c_str(), r.member_us,
              r.flashinfer_us, r.speedup, r.speedup_ci_lo, r.speedup_ci_hi, r.member_start_skew_us,
              r.flashinfer_start_skew_us, r.check.c_str(), r.flashinfer_check.c_str(), r.flashinfer_norm_max_ulp);
  // Geometric means per (link, N, member) over the problems where both passed the gate.
  struct Acc {
    int n = 0;
    double log_sum = 0, lo = std::numeric_limits<double>::infinity(), hi = 0;
    std::vector<double> skew, fi_skew;  // start skews (us): a larger one lowers the skew-free figure more
  };
  const auto median = [](std::vector<double> v) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  std::map<std::tuple<std::string, int, std::string>, Acc> acc;
  for (const PeersRow& r : rows) {
    if (r.check != "pass" || r.flashinfer_check != "pass" || !(r.speedup > 0)) continue;
    Acc& a = acc[{r.link, r.nranks, r.member}];
    ++a.n;
    a.log_sum += std::log(r.speedup);
    a.lo = std::min(a.lo, r.speedup);
    a.hi = std::max(a.hi, r.speedup);
    a.skew.push_back(r.member_start_skew_us);
    a.fi_skew.push_back(r.flashinfer_start_skew_us);
  }
  for (const auto& [key, a] : acc)
    os << fmt("VS-FLASHINFER %s N=%d %-16s geomean %.3fx over %d problems (min %.3fx, max %.3fx); median start "
              "skew %.2f us, FlashInfer's %.2f us\n",
              std::get<0>(key).c_str(), std::get<1>(key), std::get<2>(key).c_str(), std::exp(a.log_sum / a.n), a.n,
              a.lo, a.hi, median(a.skew), median(a.fi_skew));
  return os.str();
}

}  // namespace arlab::exp
