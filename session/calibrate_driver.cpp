// `arlab calibrate` on a GPU (session/session.h run_calibration): the microbenchmarks of calibrate/
// (calibrate/README.md) on the emulated node or, under mpirun / srun, one rank per process. The
// single-rank benches run on rank 0's stream while the other ranks idle (except the `_busy`
// bandwidth variants), then the cross-rank benches run between ranks 0 and 1. Process 0 fills the
// provenance columns, writes <out-dir>/microbench.csv (atomically), derives the model's constants
// from those rows (model::derive_calibration) into <out-dir>/calibration.csv and prints the
// derivation's notes. When the derivation (or a cross-rank bench on the emulated node) fails,
// microbench.csv is still written and the run reports itself incomplete.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "calibrate/cross_rank_benches.h"
#include "calibrate/single_rank_benches.h"
#include "common/build_info.h"
#include "common/csv.h"
#include "common/microbench_schema.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "harness/measurement.h"
#include "harness/nvml.h"
#include "model/calibration.h"
#include "model/calibration_derive.h"
#include "session/node_session.h"
#include "session/session.h"

namespace arlab::session {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The GPU's SM and memory clocks (NVML; read, never set), as the fused-kernel rows record them at the
// start and end of every measurement: a bench's wall time (CUPTI durations, %globaltimer intervals) scales
// with the SM clock, so the run says which clocks its constants were measured at.
std::string clocks_text(const harness::ClockReading& c) {
  if (c.sm_mhz < 0) return "unavailable";
  return "SM " + std::to_string(c.sm_mhz) + " MHz, memory " + std::to_string(c.mem_mhz) + " MHz";
}

// Process 0, after every bench: provenance, microbench.csv, the derivation, calibration.csv.
// `failure` (non-empty) is a bench failure to report after the measured rows are written. Returns
// false when the run is incomplete (a failure, or no calibration derived).
bool write_outputs(const calibrate::CalibrateOptions& o, std::vector<MicrobenchRow>& rows,
                   const calibrate::Provenance& prov, const model::GpuSpec& spec, const std::string& failure) {
  const calibrate::CalibrateOutputs out = calibrate::calibrate_outputs(o.out_dir);
  calibrate::fill_provenance(rows, prov);
  write_csv_file(out.microbench_csv, microbench_header(), [&](std::ostream& os) {
    for (const MicrobenchRow& r : rows) os << csv_join(to_cells(r)) << '\n';
  });
  std::printf("  wrote %zu microbenchmark rows to %s\n", rows.size(), out.microbench_csv.c_str());
  if (!failure.empty()) {
    std::fprintf(stderr, "arlab calibrate: error: %s\n  (%s holds the rows measured before it; no calibration "
                         "derived)\n", failure.c_str(), out.microbench_csv.c_str());
    return false;
  }
  model::DerivedCalibration derived;
  try {
    derived = model::derive_calibration(rows, spec);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "arlab calibrate: error: no calibration derived from %s: %s\n", out.microbench_csv.c_str(),
                 e.what());
    return false;
  }
  model::save_calibration(derived.calibration, out.calibration_csv,
                          calibrate::calibration_source(prov, out.microbench_csv));
  for (const std::string& note : derived.notes) std::printf("  %s\n", note.c_str());
  std::printf("  wrote the calibration to %s\n", out.calibration_csv.c_str());
  return true;
}

// Every process: the benches (process 0 runs the single-rank ones), then process 0 writes the
// outputs. Under MPI a failure propagates (the session ends every process); on the emulated node a
// cross-rank failure still lets the measured rows be written.
bool calibrate_on_node(const calibrate::CalibrateOptions& o, harness::Node& node, const NodeSession& s) {
  const bool printer = node.process_index() == 0;
  std::vector<MicrobenchRow> rows;
  const auto started = std::chrono::steady_clock::now();
  const harness::Nvml nvml;
  const std::string link = harness::node_link(node, nvml);  // collective under MPI
  if (printer) {
    std::printf("  device: %s (%d SMs), driver %s, CUDA runtime %s\n", node.device().name.c_str(),
                node.device().spec.sm_count, node.device().driver.c_str(), node.device().runtime.c_str());
    std::printf("  node: %s; link %s; kernel durations from %s\n", node.describe().c_str(), link.c_str(),
                s.cupti() ? "CUPTI records" : s.cupti_note().c_str());
    std::printf("  clocks before the benches: %s%s\n", clocks_text(nvml.clocks(node.device().ordinal)).c_str(),
                nvml.available() ? "" : (" (" + nvml.note() + ")").c_str());
    std::fflush(stdout);
    calibrate::BenchEnv env;
    env.rank = node.local_ranks().front();
    env.stream = node.rank(env.rank).stream();
    env.sms = node.sms_per_rank();
    env.device = &node.device();
    env.cupti = s.cupti();
    // --quick caps the repetitions only: derive_calibration needs every point of the full lists
    // (a reduced list left constants underivable: the quick GPU test failed on it).
    env.quick = false;
    env.reps = calibrate::effective_reps(o);
    env.timeout_ns = node.timeout_ns();
    if (node.topology() == "emulated" && node.nranks() >= 2) {
      for (int r = 1; r < node.nranks(); ++r) {
        env.partner_streams.push_back(node.rank(r).stream());
        env.partner_ranks.push_back(r);
      }
    }
    calibrate::run_single_rank_benches(env, node.nranks(), rows);
    std::printf("  clocks after the single-rank benches: %s\n", clocks_text(nvml.clocks(node.device().ordinal)).c_str());
    std::fflush(stdout);
  }
  node.allgather({0.0});  // every process waits here until process 0's single-rank benches are done
  const auto cross_start = std::chrono::steady_clock::now();
  const size_t before = rows.size();
  std::string failure;
  try {
    calibrate::CrossRankOptions cro;
    cro.quick = false;  // as env.quick above: --quick caps the repetitions only
    cro.reps = calibrate::effective_reps(o);
    cro.cupti = s.cupti();
    calibrate::run_cross_rank_benches(node, cro, rows);
    if (printer)
      std::printf("  cross-rank benches %3zu points  %6.2f s\n", rows.size() - before, seconds_since(cross_start));
  } catch (const std::exception& e) {
    if (s.multi_process()) throw;
    failure = std::string("cross-rank benches failed: ") + e.what();
  }
  if (!printer) return true;
  std::printf("  all benches: %zu points in %.1f s; clocks at the end: %s\n", rows.size(), seconds_since(started),
              clocks_text(nvml.clocks(node.device().ordinal)).c_str());
  const calibrate::Provenance prov{arlab::git_sha(), arlab::utc_now_iso8601(), node.device().name, node.topology(),
                                   link, node.nranks(), node.sms_per_rank()};
  return write_outputs(o, rows, prov, node.rank_spec(), failure);
}

}  // namespace

bool run_calibration(const calibrate::CalibrateOptions& o) {
  NodeSession s("arlab calibrate", o.device, true);
  if (s.printer()) calibrate::prepare_outputs(o);  // --out-dir made once a GPU is found
  harness::NodeOptions nopt;
  nopt.nranks = o.ranks;
  nopt.timeout_ms = o.timeout_ms;
  nopt.sms_per_rank = o.sms_per_rank;
  bool complete = true;
  s.on_node(nopt, [&](harness::Node& node) { complete = calibrate_on_node(o, node, s); });
  return complete;
}

}  // namespace arlab::session
