// Levenberg-Marquardt fit of calibration constants on relative errors (see fit.h).
#include "model/fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "model/stats.h"
#include "model/timing_model.h"

namespace arlab::model {

std::vector<std::string> default_fit_parameters() {
  return {"launch_overhead_us", "dram_latency_ns",     "l2_latency_ns",   "nvlink_latency_ns",
          "bytes_in_flight_per_sm", "block_reduce_fixed_ns", "cluster_sync_ns", "sm_ns_per_vector_op"};
}

bool is_held_out(const MeasuredRow& row, int holdout_every) {
  if (holdout_every <= 1) return false;
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a 64-bit offset basis
  for (unsigned char c : problem_key(row)) {
    h ^= c;
    h *= 1099511628211ULL;                   // FNV-1a 64-bit prime
  }
  return h % static_cast<std::uint64_t>(holdout_every) == 0;
}

namespace {

// A usable row with its spec resolved once.
struct FitRow {
  const MeasuredRow* row;
  const GpuSpec* spec;
};

Calibration with_params(const Calibration& base, const std::vector<std::string>& names, const Eigen::VectorXd& log_p) {
  Calibration c = base;
  for (size_t i = 0; i < names.size(); ++i) set_constant(c, names[i], std::exp(log_p[static_cast<long>(i)]));
  return c;
}

void residuals(const std::vector<FitRow>& rows, const Calibration& c, Eigen::VectorXd& r) {
  r.resize(static_cast<long>(rows.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    const MeasuredRow& m = *rows[i].row;
    const double p = predict_total_us(m.problem, m.config, *rows[i].spec, c, m.resources);
    r[static_cast<long>(i)] = (p - m.kernel_us) / m.kernel_us;
  }
}

double mape_of(const std::vector<FitRow>& rows, const Calibration& c) {
  if (rows.empty()) return 0;
  Eigen::VectorXd r;
  residuals(rows, c, r);
  return r.cwiseAbs().mean();
}

}  // namespace

FitReport fit_calibration(const std::vector<MeasuredRow>& rows, const Calibration& start, const FitOptions& opts) {
  if (opts.parameters.empty()) throw InvalidArgument("fit: no parameters selected");
  for (const auto& n : opts.parameters) {
    const double v = get_constant(start, n);  // throws for an unknown name
    if (!(v > 0)) throw InvalidArgument("fit: starting value of " + n + " = " + std::to_string(v) + " must be > 0");
  }
  SpecCache specs(opts.gpu_override);
  std::vector<FitRow> train, test;
  std::vector<std::string> train_keys, test_keys;
  for (const MeasuredRow& r : rows) {
    if (!r.check_passed) continue;
    const GpuSpec& s = specs.get(r);
    if (!legality_violation(r.problem, r.config, s, r.resources).empty()) continue;
    (is_held_out(r, opts.holdout_every) ? test : train).push_back({&r, &s});
  }
  if (train.empty()) throw InvalidArgument("fit: no usable training rows (after the held-out split and legality)");

  FitReport rep;
  rep.train_rows = static_cast<int>(train.size());
  rep.test_rows = static_cast<int>(test.size());
  {
    std::vector<std::string> tk, ek;
    for (const auto& f : train) tk.push_back(problem_key(*f.row));
    for (const auto& f : test) ek.push_back(problem_key(*f.row));
    std::sort(tk.begin(), tk.end());
    std::sort(ek.begin(), ek.end());
    rep.train_problems = static_cast<int>(std::unique(tk.begin(), tk.end()) - tk.begin());
    rep.test_problems = static_cast<int>(std::unique(ek.begin(), ek.end()) - ek.begin());
  }

  const auto& names = opts.parameters;
  const long np = static_cast<long>(names.size());
  Eigen::VectorXd x(np);
  for (long i = 0; i < np; ++i) x[i] = std::log(get_constant(start, names[static_cast<size_t>(i)]));

  Eigen::VectorXd r, r_try, r_step;
  residuals(train, with_params(start, names, x), r);
  double cost = r.squaredNorm();
  // Damping: start small (close to Gauss-Newton), divide by 3 after a successful step, multiply by
  // 4 after a failed one (the usual Levenberg-Marquardt schedule; Marquardt scaling by diag(J'J)).
  double lambda = 1e-3;
  constexpr double kStep = 1e-6;         // forward-difference step in log space
  constexpr double kRelTolerance = 1e-14; // stop when the cost improves by less than this (relative)
  Eigen::MatrixXd J(static_cast<long>(train.size()), np);
  rep.stop_reason = "iteration limit";
  for (int it = 0; it < opts.max_iterations; ++it) {
    rep.iterations = it + 1;
    for (long j = 0; j < np; ++j) {
      Eigen::VectorXd xj = x;
      xj[j] += kStep;
      residuals(train, with_params(start, names, xj), r_step);
      J.col(j) = (r_step - r) / kStep;
    }
    const Eigen::MatrixXd JtJ = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool improved = false;
    for (int attempt = 0; attempt < 20 && !improved; ++attempt) {  // lambda grows 4^20 ~ 1e12 at most
      Eigen::MatrixXd A = JtJ;
      for (long d = 0; d < np; ++d) A(d, d) += lambda * std::max(JtJ(d, d), 1e-12);
      const Eigen::VectorXd step = A.ldlt().solve(-g);
      const Eigen::VectorXd x_try = x + step;
      residuals(train, with_params(start, names, x_try), r_try);
      const double cost_try = r_try.squaredNorm();
      if (std::isfinite(cost_try) && cost_try < cost) {
        const double gain = (cost - cost_try) / std::max(cost, 1e-300);
        x = x_try;
        r = r_try;
        cost = cost_try;
        lambda = std::max(lambda / 3, 1e-12);
        improved = true;
        if (gain < kRelTolerance || cost < 1e-24) {
          rep.converged = true;
          rep.stop_reason = cost < 1e-24 ? "exact fit" : "cost change below tolerance";
        }
      } else {
        lambda *= 4;
      }
    }
    if (!improved) {
      rep.converged = true;
      rep.stop_reason = "no further decrease (local minimum)";
    }
    if (rep.converged) break;
  }

  rep.fitted = with_params(start, names, x);
  for (const auto& n : names) rep.constants.push_back({n, get_constant(start, n), get_constant(rep.fitted, n)});
  rep.train_mape_start = mape_of(train, start);
  rep.train_mape_fitted = mape_of(train, rep.fitted);
  rep.test_mape_start = mape_of(test, start);
  rep.test_mape_fitted = mape_of(test, rep.fitted);
  return rep;
}

}  // namespace arlab::model
