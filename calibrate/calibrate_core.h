// The pure parts of `arlab calibrate` (CPU-tested, built in every configuration): its options and
// their checks, the output paths, one microbenchmark point from its repetitions (median, p10, p90),
// and the provenance columns every row carries. The GPU benches (calibrate/bench_*.cu) and the
// command (cli/cli_calibrate.cpp) build on these.
#pragma once

#include <string>
#include <vector>

#include "common/microbench_schema.h"

namespace arlab::calibrate {

struct CalibrateOptions {
  std::string out_dir = "out/calibrate";
  int ranks = 2;
  bool ranks_given = false;  // -n given explicitly (under mpirun it must then equal the process count)
  int device = 0;
  int sms_per_rank = 0;      // 0: the largest equal split
  bool quick = false;        // fewer repetitions per point (kQuickReps; the GPU test), every point kept
  double timeout_ms = 2000;  // bound of every device spin-wait
  int reps = 20;             // repetitions behind each point
};

// Bounds of the options (also the CLI11 validators' ranges).
constexpr int kMinRanks = 2;   // the cross-rank benches need rank 0 and rank 1
constexpr int kMaxRanks = 16;  // emulated node: 16 partitions of 8 SMs fit a 132-SM GPU
constexpr int kMinReps = 3;    // a median, p10 and p90 need a few samples
constexpr int kMaxReps = 1000;
constexpr double kMaxTimeoutMs = 1e9;  // as `arlab run`: its nanoseconds fit the kernels' 64-bit bound
// --quick caps the repetitions at this many (the GPU test's budget).
constexpr int kQuickReps = 5;

// Throws InvalidArgument naming the option and value: empty --out-dir (or one naming an existing
// non-directory), ranks outside [kMinRanks, kMaxRanks], negative device or SMs per rank, timeout not
// finite and > 0, reps outside [kMinReps, kMaxReps].
void check_calibrate_options(const CalibrateOptions& o);

// Repetitions the benches use: --reps, capped at kQuickReps with --quick.
int effective_reps(const CalibrateOptions& o);

struct CalibrateOutputs {
  std::string microbench_csv;   // <out-dir>/microbench.csv
  std::string calibration_csv;  // <out-dir>/calibration.csv
};
CalibrateOutputs calibrate_outputs(const std::string& out_dir);

// Creates --out-dir when missing, then checks that both outputs may be written: not directories,
// and an existing file holds the same schema (it is replaced, atomically, only then). Throws
// InvalidArgument otherwise.
void prepare_outputs(const CalibrateOptions& o);

// The configuration echo (one line, no trailing newline).
std::string describe(const CalibrateOptions& o);

// One measured point: value = median, p10 / p90 of `samples` (linear interpolation between order
// statistics), reps = their count, rank 0; provenance columns empty. Throws InvalidArgument when
// samples is empty or holds a value that is not finite.
struct PointKey {
  std::string bench, variant;
  int sms = 0, tpb = 0, cluster = 0;
  double size = 0;
  std::string size_unit = "-";
  std::string metric;
};
MicrobenchRow make_point(const PointKey& key, const std::vector<double>& samples);

// What every row of one calibrate run shares.
struct Provenance {
  std::string git_sha, date_utc, gpu, topology, link;
  int nranks = 0;
  int sm_per_rank = 0;
};
// Sets the provenance columns of every row (the bench columns are left as they are).
void fill_provenance(std::vector<MicrobenchRow>& rows, const Provenance& p);

// The calibration CSV's source text: the microbench file and the provenance it was measured with.
std::string calibration_source(const Provenance& p, const std::string& microbench_csv);

}  // namespace arlab::calibrate
