#include "common/build_info.h"
#include "harness/measurement.h"

#include <ctime>
#include <exception>
#include <limits>

#include "model/timing_model.h"

namespace arlab::harness {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Measurement measure_call(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg,
                         const model::Calibration& cal, const MeasureSettings& s, CuptiKernelTimer* cupti) {
  Node& node = runner.node();
  runner.validate_call(call, cfg);
  const model::KernelResources res = runner.resources(cfg);
  Measurement m;
  m.graph_us = kNaN;
  m.predicted_us = kNaN;

  if (s.check) {
    m.gate = runner.check(call, cfg);
    m.checked = true;
  }
  const bool timed = s.timing.iters > 0;
  if (timed) {
    m.timing = time_isolated(runner, call, cfg, s.timing, cupti);
    if (s.timing.graph_calls > 0) m.graph_us = time_graph_per_call(runner, call, cfg, s.timing);
  }
  try {
    m.predicted_us = model::predict(call, cfg, node.rank_spec(), cal, res).total_us;
  } catch (const std::exception& e) {
    m.prediction_note = e.what();
  }

  MeasurementRow& row = m.row;
  row.experiment = s.experiment;
  row.git_sha = arlab::git_sha();
  row.date_utc = utc_now_iso8601();
  row.gpu = node.device().name;
  row.driver = node.device().driver;
  row.cuda = node.device().runtime;
  row.topology = node.topology();
  row.link = node.topology() == "emulated" || !node.timings_meaningful() ? "local" : "nvlink";
  row.sm_per_rank = node.sms_per_rank();
  row.nranks = call.nranks;
  row.dtype = to_string(call.dtype);
  row.pattern = to_string(call.pattern);
  row.algo = to_string(cfg.algo);
  row.acc = to_string(call.acc);
  row.tokens = call.tokens;
  row.hidden = call.hidden;
  row.policy = s.policy;
  row.tpb = cfg.tpb;
  row.cluster = cfg.cluster;
  row.grid = cfg.grid;
  row.vecs_per_thread = cfg.vecs_per_thread;
  row.pdl = cfg.pdl ? 1 : 0;
  row.regs = res.regs_per_thread;
  row.iters = timed ? m.timing.iters : 0;
  row.timing_source = timed ? m.timing.source : "none";
  row.kernel_us_median = timed ? m.timing.kernel_us.median : kNaN;
  row.kernel_us_p10 = timed ? m.timing.kernel_us.p10 : kNaN;
  row.kernel_us_p90 = timed ? m.timing.kernel_us.p90 : kNaN;
  row.skewfree_us_median = timed ? m.timing.skewfree_us : kNaN;
  row.rank_spread_us_median = timed ? m.timing.rank_spread_us : kNaN;
  row.graph_us_per_call = m.graph_us;
  row.predicted_us = m.predicted_us;
  row.check = !m.checked ? "skipped" : (m.gate.pass ? "pass" : "fail");
  row.norm_max_ulp = m.checked ? m.gate.norm_max_ulp : -1;
  row.quant_nonexact = m.checked ? static_cast<long long>(m.gate.quant_nonexact) : -1;
  row.err_rel_rms_vs_exact = m.checked ? m.gate.err_rel_rms_vs_exact : kNaN;
  return m;
}

}  // namespace arlab::harness
