// The one definition of the microbenchmark CSV schema: one row per measured point of an
// `arlab calibrate` microbenchmark (calibrate/), tidy and long-format. model/calibration_derive.*
// turns these rows into the timing model's constants (model/calibration.h; it reads them with
// common/csv_table.h); plots read them by column name. The bench / metric vocabulary is listed in
// calibrate/README.md; the bench names also below (microbench_names).
#pragma once

#include <string>
#include <vector>

#include "common/csv.h"

// X(type, name, description[, default]) -- common/csv.h
#define ARLAB_MICROBENCH_COLUMNS(X)                                                                   \
  X(std::string, git_sha, "arlab commit the binary was built from")                                   \
  X(std::string, date_utc, "UTC time of the measurement, ISO 8601")                                   \
  X(std::string, gpu, "device name as the driver reports it")                                         \
  X(std::string, topology, "emulated or mpi")                                                         \
  X(std::string, link, "local (emulated node), nvlink, pcie or unknown")                              \
  X(int, nranks, "ranks of the node the bench ran on")                                                \
  X(int, sm_per_rank, "SMs of one rank (its green-context partition on the emulated node)")           \
  X(int, rank, "rank that measured the point (-1: a node-wide figure)")                               \
  X(std::string, bench, "microbenchmark name (calibrate/README.md)")                                  \
  X(std::string, variant, "the bench's variant (e.g. load kind, direction); '-' when none")           \
  X(int, sms, "SMs (or blocks) the bench ran on; 0 when not applicable")                              \
  X(int, tpb, "threads per block; 0 when not applicable")                                             \
  X(int, cluster, "cluster size; 0 when not applicable")                                              \
  X(double, size, "the bench's size parameter (bytes, grid, spinning threads ...); see size_unit")    \
  X(std::string, size_unit, "unit of size")                                                           \
  X(std::string, metric, "what value is (latency_ns, duration_us, gbps, ns_per_op ...)")              \
  X(double, value, "the median over the bench's repetitions")                                         \
  X(double, p10, "10th percentile over the repetitions")                                              \
  X(double, p90, "90th percentile over the repetitions")                                              \
  X(int, reps, "repetitions behind the percentiles")

namespace arlab {

ARLAB_CSV_SCHEMA(ARLAB_MICROBENCH_COLUMNS, MicrobenchRow, microbench_header)

// The body_round bench's reuse rows (`*_n4_reuse_slowest`): their largest `size` (bytes written between)
// is this many times the run's L2, so that a reader can express every size as a fraction of L2 without
// the device's L2 size (calibrate/bench_body_round.cu writes them, model/calibration_derive.cpp reads them).
inline constexpr double kBodyRoundReuseMaxL2s = 4.0;

// The benches `arlab calibrate` runs (the `bench` cells it writes): the single-rank ones in
// calibrate/single_rank_benches.cu's order, then the cross-rank ones of
// calibrate/cross_rank_benches.cu (the table of calibrate/README.md). A reader refuses other names:
// a misspelt bench would otherwise drop its rows and change what they derive.
// The benches of `arlab calibrate`, listed once (calibrate/README.md says what each measures): the
// single-rank benches run in this order by calibrate/single_rank_benches.cu (one function
// bench_NAME(env, nranks, rows) each, in calibrate/bench_NAME.cu); the cross-rank benches by
// calibrate/cross_rank_benches.cu. A microbench row's `bench` cell must be one of these.
#define ARLAB_SINGLE_RANK_BENCHES(X) \
  X(launch)                          \
  X(chase)                           \
  X(round_load)                      \
  X(bandwidth)                       \
  X(clear)                           \
  X(block_reduce)                    \
  X(cluster_sync)                    \
  X(atomic)                          \
  X(epilogue_math)                   \
  X(epilogue_round)                  \
  X(cluster_placement)               \
  X(body_round)
#define ARLAB_CROSS_RANK_BENCHES(X) \
  X(peer_store)                     \
  X(ping_pong)                      \
  X(poll)                           \
  X(start_skew)                     \
  X(exchange)

inline std::vector<std::string> microbench_names() {
  std::vector<std::string> names;
#define ARLAB_BENCH_NAME(name) names.emplace_back(#name);
  ARLAB_SINGLE_RANK_BENCHES(ARLAB_BENCH_NAME)
  ARLAB_CROSS_RANK_BENCHES(ARLAB_BENCH_NAME)
#undef ARLAB_BENCH_NAME
  return names;
}

}  // namespace arlab
