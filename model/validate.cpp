// validate_measurements: predictions, errors, rank correlation and regret (see validate.h).
#include "model/validate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "common/csv.h"
#include "common/csv_table.h"
#include "common/output_file.h"
#include "common/row_cells.h"
#include "common/validation_schema.h"
#include "model/candidates.h"
#include "model/policies.h"
#include "model/stats.h"
#include "model/timing_model.h"

namespace arlab::model {

namespace {

// A configuration's identity within a problem, kernel body included (pdl is not a model input
// and is ignored). The fixed policies' regret looks up their reference-kernel configurations.
using ConfigKey = std::tuple<int, int, int, int, bool, int>;
ConfigKey config_key(const LaunchConfig& c) {
  return {c.tpb, c.cluster, c.grid, c.vecs_per_thread, c.algo == Algorithm::twoshot, static_cast<int>(c.impl)};
}

struct ConfigStats {
  double measured_sum = 0;
  int measured_n = 0;
  double predicted_sum = 0;
  int predicted_n = 0;
  double measured() const { return measured_sum / measured_n; }
  double predicted() const { return predicted_sum / predicted_n; }
};

void summarize(PolicyRegret& pr, const std::vector<double>& regrets) {
  pr.evaluated = static_cast<int>(regrets.size());
  pr.mean = mean(regrets);
  pr.median = median(regrets);
  pr.max = regrets.empty() ? 0 : *std::max_element(regrets.begin(), regrets.end());
  pr.zero_regret = static_cast<int>(std::count(regrets.begin(), regrets.end(), 0.0));
}

}  // namespace

ValidationReport validate_measurements(const std::vector<MeasuredRow>& rows, const Calibration& cal,
                                       const ValidateOptions& opts) {
  ValidationReport rep;
  SpecCache specs(opts.gpu_override, opts.source);
  std::unordered_map<std::string, int> group_of;
  std::vector<std::vector<size_t>> groups;
  rep.rows.resize(rows.size());
  std::vector<double> pred_used, meas_used, apes, apes_max_over_ranks;
  pred_used.reserve(rows.size());
  meas_used.reserve(rows.size());
  apes.reserve(rows.size());

  for (size_t i = 0; i < rows.size(); ++i) {
    const MeasuredRow& r = rows[i];
    RowResult& out = rep.rows[i];
    out.row = i;
    const auto [it, inserted] = group_of.emplace(problem_key(r), static_cast<int>(groups.size()));
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(i);
    out.problem_id = "p" + std::to_string(it->second);
    if (!r.check_passed) {
      out.status = "failed_check";
      ++rep.rows_failed_check;
      continue;
    }
    const GpuSpec& spec = specs.get(r);
    const std::string illegal = legality_violation(r.problem, r.config, spec, r.resources);
    if (!illegal.empty()) {
      out.status = "not_predicted: " + illegal;
      ++rep.rows_not_predicted;
      continue;
    }
    out.predicted_us = predict_total_us(r.problem, r.config, spec, cal, r.resources);
    out.predicted = true;
    out.ape = abs_pct_error(out.predicted_us, r.kernel_us);
    out.status = "ok";
    pred_used.push_back(out.predicted_us);
    meas_used.push_back(r.kernel_us);
    apes.push_back(out.ape);
    if (std::isfinite(r.skewfree_us) && r.skewfree_us > 0 && r.max_over_ranks_us > 0)
      apes_max_over_ranks.push_back(abs_pct_error(out.predicted_us, r.max_over_ranks_us));
  }
  rep.rows_with_skewfree = static_cast<int>(apes_max_over_ranks.size());
  rep.mape_max_over_ranks = mean(apes_max_over_ranks);
  rep.median_ape_max_over_ranks = median(apes_max_over_ranks);
  rep.rows_used = static_cast<int>(apes.size());
  rep.problems = static_cast<int>(groups.size());
  rep.mape = mean(apes);
  rep.median_ape = median(apes);
  if (!apes.empty()) {
    std::vector<double> sorted = apes;
    std::sort(sorted.begin(), sorted.end());
    rep.p90_ape = sorted[static_cast<size_t>(std::floor(0.9 * static_cast<double>(sorted.size() - 1)))];
    rep.max_ape = sorted.back();
  }
  rep.spearman_all = spearman(pred_used, meas_used);

  // Per problem: rank correlation and regret.
  const std::vector<Policy> fixed = {Policy::legacy, Policy::trtllm, Policy::occupancy};
  // fixed policies, then the model's own pick as measured (rows labelled `model`: the configuration
  // the model policy chose when the experiment ran), then the lowest predicted among the measured.
  const size_t own = fixed.size();
  std::vector<std::vector<double>> regrets(fixed.size() + 2);
  std::vector<PolicyRegret> pr(fixed.size() + 2);
  for (size_t k = 0; k < fixed.size(); ++k) pr[k].policy = to_string(fixed[k]);
  pr[own].policy = "model (its own pick, measured)";
  pr.back().policy = "model (lowest predicted among measured)";
  std::vector<double> rhos;
  int global_in_measured = 0, global_search_failed = 0;
  for (const auto& g : groups) {
    std::map<ConfigKey, ConfigStats> configs;
    for (size_t i : g) {
      if (!rows[i].check_passed) continue;
      ConfigStats& cs = configs[config_key(rows[i].config)];
      cs.measured_sum += rows[i].kernel_us;
      ++cs.measured_n;
      if (rep.rows[i].predicted) {
        cs.predicted_sum += rep.rows[i].predicted_us;
        ++cs.predicted_n;
      }
    }
    if (configs.empty()) continue;
    double best = 0;
    bool first = true;
    for (const auto& [key, cs] : configs) {
      if (first || cs.measured() < best) best = cs.measured();
      first = false;
    }
    const MeasuredRow& r0 = rows[g.front()];
    const GpuSpec& spec = specs.get(r0);
    for (size_t k = 0; k < fixed.size(); ++k) {
      LaunchConfig chosen;
      try {
        chosen = choose_launch_config(fixed[k], r0.problem, spec, r0.resources, cal);
      } catch (const InvalidArgument&) {
        ++pr[k].refused;
        continue;
      }
      const auto it = configs.find(config_key(chosen));
      if (it == configs.end()) {
        ++pr[k].unmeasured;
        continue;
      }
      regrets[k].push_back(it->second.measured() / best - 1.0);
    }
    double own_sum = 0;
    int own_n = 0;
    for (size_t i : g)
      if (rows[i].check_passed && rows[i].policy == to_string(Policy::model)) {
        own_sum += rows[i].kernel_us;
        ++own_n;
      }
    if (own_n > 0) regrets[own].push_back(own_sum / own_n / best - 1.0);
    else ++pr[own].unmeasured;
    // Model: lowest predicted among the measured configurations; rank correlation.
    std::vector<double> p, m;
    const ConfigStats* pick = nullptr;
    for (const auto& [key, cs] : configs) {
      if (cs.predicted_n == 0) continue;
      p.push_back(cs.predicted());
      m.push_back(cs.measured());
      if (!pick || cs.predicted() < pick->predicted()) pick = &cs;
    }
    if (pick) regrets.back().push_back(pick->measured() / best - 1.0);
    if (p.size() >= 3) {
      const double rho = spearman(p, m);
      if (!std::isnan(rho)) rhos.push_back(rho);
    }
    if (opts.model_global_search) {
      try {
        const SearchResult s = search_best_config(r0.problem, spec, r0.resources, cal, {r0.problem.algo});
        if (configs.count(config_key(s.best))) ++global_in_measured;
      } catch (const InvalidArgument&) {
        ++global_search_failed;  // no legal candidate for this problem's spec and registers
      }
    }
  }
  for (size_t k = 0; k < pr.size(); ++k) summarize(pr[k], regrets[k]);
  rep.regrets = pr;
  rep.spearman_problems = static_cast<int>(rhos.size());
  rep.spearman_per_problem_mean = rhos.empty() ? std::nan("") : mean(rhos);
  rep.spearman_per_problem_median = rhos.empty() ? std::nan("") : median(rhos);
  if (opts.model_global_search) {
    rep.model_global_in_measured = global_in_measured;
    rep.model_global_search_failed = global_search_failed;
  }
  return rep;
}

void require_usable_rows(const std::vector<MeasuredRow>& rows, const ValidationReport& rep, const std::string& source) {
  if (rep.rows_used > 0) return;
  if (rows.empty())
    throw CsvError(source, 1, "", "no data rows (only the header): there is nothing to judge the model on");
  std::string first_reason;
  for (const RowResult& r : rep.rows)
    if (r.status != "ok") {
      first_reason = "line " + std::to_string(rows[r.row].line) + ": " + r.status;
      break;
    }
  throw CsvError(source, rows.front().line, "",
                 "no usable rows: of " + std::to_string(rows.size()) + " rows, " +
                     std::to_string(rep.rows_failed_check) + " failed their correctness check (check is not 'pass') "
                     "and " + std::to_string(rep.rows_not_predicted) + " are illegal configurations for the model (" +
                     first_reason + "): there is nothing to judge the model on");
}

void write_validation_csv(const std::vector<MeasuredRow>& rows, const ValidationReport& rep, const std::string& path) {
  write_csv_file(path, validation_header(), [&](std::ostream& out) {
    for (const RowResult& res : rep.rows) {
      const MeasuredRow& r = rows[res.row];
      ValidationRow v;
      v.line = r.line;
      v.problem_id = res.problem_id;
      v.gpu = r.gpu;
      v.link = to_string(r.link);
      v.sm_per_rank = r.sm_per_rank;
      set_problem_cells(v, r.problem);
      set_config_cells(v, r.config);
      v.policy = r.policy;
      v.regs = r.resources.regs_per_thread;
      v.kernel_us_median = r.kernel_us;
      if (res.predicted) {
        v.predicted_us = res.predicted_us;
        v.ape_pct = 100.0 * res.ape;
      }
      v.status = res.status;
      out << csv_join(to_cells(v)) << '\n';
    }
  });
}

}  // namespace arlab::model
