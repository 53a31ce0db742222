// Levenberg-Marquardt fit of calibration constants on relative errors (see fit.h).
#include "model/fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/csv_table.h"
#include "model/stats.h"
#include "model/timing_model.h"

namespace arlab::model {

std::vector<std::string> default_fit_parameters() {
  return {"launch_overhead_us",    "dram_latency_ns", "l2_latency_ns",        "peer_visibility_ns",
          "block_reduce_fixed_ns", "cluster_sync_ns", "vector_op_latency_ns", "hbm_efficiency"};
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
  for (size_t i = 0; i < opts.parameters.size(); ++i) {
    const std::string& n = opts.parameters[i];
    const double v = get_constant(start, n);  // throws for an unknown name
    if (!(v > 0)) throw InvalidArgument("fit: starting value of " + n + " = " + std::to_string(v) + " must be > 0");
    if (std::find(opts.parameters.begin(), opts.parameters.begin() + static_cast<long>(i), n) !=
        opts.parameters.begin() + static_cast<long>(i))
      throw InvalidArgument("fit: parameter " + n + " is listed twice");
  }
  if (opts.holdout_every < 2)
    throw InvalidArgument("fit: --holdout-every = " + std::to_string(opts.holdout_every) +
                          " holds out nothing; it must be >= 2 (one problem in every holdout_every is held out; "
                          "default 5)");
  if (opts.max_iterations < 1)
    throw InvalidArgument("fit: --max-iter = " + std::to_string(opts.max_iterations) +
                          " must be >= 1 (with no iteration the 'fitted' constants would be the starting ones)");
  // Errors about the rows name the file and the first data line (the header when there is none).
  const int first_line = rows.empty() ? 1 : rows.front().line;
  auto fail_rows = [&](const std::string& what) { throw CsvError(opts.source, first_line, "", "fit: " + what); };
  if (rows.empty()) fail_rows("no data rows (only the header): nothing to fit");
  SpecCache specs(opts.gpu_override, opts.source);
  std::vector<FitRow> train, test;
  int failed_check = 0, illegal = 0;
  for (const MeasuredRow& r : rows) {
    if (!r.check_passed) {
      ++failed_check;
      continue;
    }
    const GpuSpec& s = specs.get(r);
    if (!legality_violation(r.problem, r.config, s, r.resources).empty()) {
      ++illegal;
      continue;
    }
    (is_held_out(r, opts.holdout_every) ? test : train).push_back({&r, &s});
  }
  if (train.empty())
    fail_rows("no usable training rows: of " + std::to_string(rows.size()) + " rows, " + std::to_string(failed_check) +
              " failed their correctness check, " + std::to_string(illegal) + " are illegal for the model and " +
              std::to_string(test.size()) + " are held out");

  FitReport rep;
  rep.train_rows = static_cast<int>(train.size());
  rep.test_rows = static_cast<int>(test.size());
  {
    std::vector<std::string> tk, ek, points;
    for (const auto& f : train) {
      tk.push_back(problem_key(*f.row));
      points.push_back(tk.back() + "|" + to_string(f.row->config));
    }
    for (const auto& f : test) ek.push_back(problem_key(*f.row));
    for (auto* keys : {&tk, &ek, &points}) {
      std::sort(keys->begin(), keys->end());
      keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
    }
    rep.train_problems = static_cast<int>(tk.size());
    rep.test_problems = static_cast<int>(ek.size());
    const size_t np = opts.parameters.size();
    if (points.size() < np || tk.size() < np)
      fail_rows(std::to_string(train.size()) + " training rows hold " + std::to_string(points.size()) +
                " distinct (problem, configuration) points of " + std::to_string(tk.size()) +
                " distinct problems, fewer than the " + std::to_string(np) +
                " constants fitted: they cannot determine them (measure more problems, or fit fewer constants "
                "with --params)");
    if (ek.empty())
      fail_rows("the split held out none of the " + std::to_string(tk.size()) + " problems (problems whose hash % " +
                std::to_string(opts.holdout_every) + " == 0 are held out): there would be no held-out error; "
                "measure more problems or lower --holdout-every");
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
  for (const auto& info : calibration_constants()) {
    const std::string bad = range_violation(info, get_constant(rep.fitted, info.name));
    if (!bad.empty())
      fail_rows("the fitted " + bad + ": a fit that leaves a constant's physical range explains nothing (docs/model.md); "
                "keep it fixed (leave it out of --params) or check the rows");
  }
  for (const auto& n : names) rep.constants.push_back({n, get_constant(start, n), get_constant(rep.fitted, n)});
  rep.train_mape_start = mape_of(train, start);
  rep.train_mape_fitted = mape_of(train, rep.fitted);
  rep.test_mape_start = mape_of(test, start);
  rep.test_mape_fitted = mape_of(test, rep.fitted);
  return rep;
}

}  // namespace arlab::model
