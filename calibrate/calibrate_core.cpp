// Pure parts of `arlab calibrate` (calibrate/calibrate_core.h).
#include "calibrate/calibrate_core.h"

#include <cmath>
#include <filesystem>
#include <system_error>

#include "common/calibration_schema.h"
#include "common/csv.h"
#include "common/output_file.h"
#include "common/problem.h"
#include "harness/timing_stats.h"

namespace arlab::calibrate {

void check_calibrate_options(const CalibrateOptions& o) {
  if (o.out_dir.empty()) throw InvalidArgument("--out-dir: empty path");
  std::error_code ec;
  if (std::filesystem::exists(o.out_dir, ec) && !std::filesystem::is_directory(o.out_dir, ec))
    throw InvalidArgument("--out-dir " + o.out_dir + ": exists and is not a directory");
  if (o.ranks < kMinRanks || o.ranks > kMaxRanks)
    throw InvalidArgument("--ranks = " + std::to_string(o.ranks) + " must be in [" + std::to_string(kMinRanks) +
                          ", " + std::to_string(kMaxRanks) + "] (the cross-rank benches need ranks 0 and 1)");
  if (o.device < 0) throw InvalidArgument("--device = " + std::to_string(o.device) + " must be >= 0");
  if (o.sms_per_rank < 0)
    throw InvalidArgument("--sms-per-rank = " + std::to_string(o.sms_per_rank) + " must be >= 0 (0: equal split)");
  if (!std::isfinite(o.timeout_ms) || !(o.timeout_ms > 0) || o.timeout_ms > kMaxTimeoutMs)
    throw InvalidArgument("--timeout-ms = " + csv_num(o.timeout_ms) + " must be finite, > 0 and <= " +
                          csv_num(kMaxTimeoutMs));
  if (o.reps < kMinReps || o.reps > kMaxReps)
    throw InvalidArgument("--reps = " + std::to_string(o.reps) + " must be in [" + std::to_string(kMinReps) + ", " +
                          std::to_string(kMaxReps) + "]");
}

int effective_reps(const CalibrateOptions& o) { return o.quick && o.reps > kQuickReps ? kQuickReps : o.reps; }

CalibrateOutputs calibrate_outputs(const std::string& out_dir) {
  const std::filesystem::path dir(out_dir);
  return CalibrateOutputs{(dir / "microbench.csv").string(), (dir / "calibration.csv").string()};
}

void prepare_outputs(const CalibrateOptions& o) {
  check_calibrate_options(o);
  std::error_code ec;
  if (!std::filesystem::is_directory(o.out_dir, ec)) {
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) throw InvalidArgument("--out-dir " + o.out_dir + ": cannot create it (" + ec.message() + ")");
  }
  const CalibrateOutputs out = calibrate_outputs(o.out_dir);
  check_output_path(out.microbench_csv, {}, "--out-dir");
  check_replaceable(out.microbench_csv, microbench_header());
  check_output_path(out.calibration_csv, {out.microbench_csv}, "--out-dir");
  check_replaceable(out.calibration_csv, calibration_header());
}

std::string describe(const CalibrateOptions& o) {
  return "out-dir " + o.out_dir + ", " + std::to_string(o.ranks) + " ranks" + (o.ranks_given ? "" : " (default)") +
         ", device " + std::to_string(o.device) + ", SMs per rank " +
         (o.sms_per_rank > 0 ? std::to_string(o.sms_per_rank) : std::string("equal split")) + ", " +
         std::to_string(effective_reps(o)) + " repetitions per point" + (o.quick ? " (quick)" : "") +
         ", timeout " + csv_num(o.timeout_ms) + " ms";
}

MicrobenchRow make_point(const PointKey& key, const std::vector<double>& samples) {
  if (samples.empty()) throw InvalidArgument("microbench " + key.bench + "/" + key.variant + ": no samples");
  for (double s : samples)
    if (!std::isfinite(s))
      throw InvalidArgument("microbench " + key.bench + "/" + key.variant + ": a sample is not finite (" +
                            csv_num(s) + ")");
  MicrobenchRow r;
  r.rank = 0;
  r.bench = key.bench;
  r.variant = key.variant.empty() ? "-" : key.variant;
  r.sms = key.sms;
  r.tpb = key.tpb;
  r.cluster = key.cluster;
  r.size = key.size;
  r.size_unit = key.size_unit;
  r.metric = key.metric;
  r.value = harness::quantile(samples, 0.5);
  r.p10 = harness::quantile(samples, 0.1);
  r.p90 = harness::quantile(samples, 0.9);
  r.reps = static_cast<int>(samples.size());
  return r;
}

void fill_provenance(std::vector<MicrobenchRow>& rows, const Provenance& p) {
  for (MicrobenchRow& r : rows) {
    r.git_sha = p.git_sha;
    r.date_utc = p.date_utc;
    r.gpu = p.gpu;
    r.topology = p.topology;
    r.link = p.link;
    r.nranks = p.nranks;
    r.sm_per_rank = p.sm_per_rank;
  }
}

std::string calibration_source(const Provenance& p, const std::string& microbench_csv) {
  return "arlab calibrate microbenchmarks " + microbench_csv + " (" + p.gpu + ", " + p.topology + " node of " +
         std::to_string(p.nranks) + " ranks x " + std::to_string(p.sm_per_rank) + " SMs, link " + p.link + ", git " +
         p.git_sha + ", " + p.date_utc + ")";
}

}  // namespace arlab::calibrate
