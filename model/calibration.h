// Calibration: the timing model's free constants, each with its unit in its name and a documented
// default. Defaults are priors (physically plausible magnitudes, sources below), NOT fitted to the
// kernel timings the model is judged on; `arlab fit` replaces them by least squares on a training
// split, and `arlab calibrate` microbenchmarks are meant to measure them directly (DESIGN §7).
// Stored as a long-format CSV `name,value,unit,source` (common/calibration_schema.h), read with
// fast-cpp-csv-parser.
#pragma once

#include <string>
#include <vector>

namespace arlab::model {

// X(name, default, unit, meaning and source of the default)
#define ARLAB_CALIBRATION_CONSTANTS(X)                                                                              \
  X(launch_overhead_us, 2.0, "us",                                                                                   \
    "fixed duration of one launch: block dispatch, control-block read, exit (prior: CUPTI duration of a "            \
    "near-empty kernel is 1-3 us on Hopper; measure with an empty kernel)")                                         \
  X(cluster_launch_us, 0.3, "us",                                                                                    \
    "extra fixed cost of a cluster launch (cluster > 1): cluster scheduling and the initial cluster barrier (prior)") \
  X(dram_latency_ns, 600.0, "ns",                                                                                    \
    "latency of a load that misses L2 (inputs x and residual); prior: published pointer-chase latencies on "          \
    "H100 are several hundred ns")                                                                                   \
  X(l2_latency_ns, 250.0, "ns",                                                                                      \
    "latency of an L2 hit: the poll of freshly stored data, local store-to-visible time, flag round trips (prior: "   \
    "~200-300 cycles on Hopper at ~1.8 GHz)")                                                                        \
  X(nvlink_latency_ns, 900.0, "ns",                                                                                  \
    "one-way time from a store to peer memory until a poll on the peer sees it; a remote load costs twice this "      \
    "(prior: NVLink round trips are ~1-2 us)")                                                                        \
  X(bytes_in_flight_per_sm, 32768.0, "bytes",                                                                        \
    "memory bytes one SM keeps outstanding; Little's law: per-SM rate = bytes_in_flight / latency (prior: the "       \
    "order needed to saturate HBM, 3.35 TB/s x 600 ns / 132 SMs = 15 KB, with headroom)")                           \
  X(sm_l2_bytes_per_cycle, 64.0, "bytes/cycle",                                                                      \
    "per-SM L1<->L2 data path; caps an SM's load and store rate at this x sm_clock (prior: 64 B/clk per SM)")         \
  X(block_reduce_fixed_ns, 200.0, "ns",                                                                              \
    "block-wide sum of squares: warp shuffles, shared-memory exchange, __syncthreads, final warp reduce (prior: "     \
    "~400 cycles)")                                                                                                   \
  X(block_reduce_ns_per_warp, 2.0, "ns",                                                                             \
    "extra block-reduce time per warp of the block (prior)")                                                         \
  X(cluster_sync_ns, 200.0, "ns",                                                                                    \
    "one cluster barrier (barrier.cluster arrive + wait); a cluster reduce takes two (prior)")                       \
  X(dsmem_access_ns, 40.0, "ns",                                                                                     \
    "per block of the cluster: reading one partial sum through distributed shared memory (prior)")                   \
  X(sm_ns_per_vector_op, 0.065, "ns",                                                                                \
    "SM-wide issue time of one thread's operation on one 16-byte vector (~16 instructions at 128 thread-"           \
    "instructions per cycle and 1.98 GHz = 0.063 ns)")                                                               \
  X(rank_skew_us, 0.5, "us",                                                                                         \
    "start skew between ranks that the first wait on a peer absorbs (prior; DESIGN §6 saw ~3 us with a host gate)")  \
  X(arrival_atomic_ns, 2.0, "ns",                                                                                    \
    "per block: the serialized atomic increment of the one-shot arrival counter at one L2 slice (prior)")            \
  X(hbm_efficiency, 0.85, "fraction",                                                                                \
    "achievable fraction of the datasheet HBM bandwidth (prior: streaming kernels reach 80-90%)")                     \
  X(link_efficiency, 0.80, "fraction",                                                                               \
    "achievable fraction of the per-direction NVLink bandwidth for peer stores (prior)")

struct Calibration {
#define ARLAB_CAL_FIELD(name, def, unit, doc) double name = def;
  ARLAB_CALIBRATION_CONSTANTS(ARLAB_CAL_FIELD)
#undef ARLAB_CAL_FIELD
};

struct CalibrationConstantInfo {
  std::string name;
  double default_value;
  std::string unit;
  std::string meaning;
};

Calibration default_calibration();
std::vector<CalibrationConstantInfo> calibration_constants();  // in declaration order
// Access a constant by name; throws InvalidArgument listing the known names when unknown.
double get_constant(const Calibration& c, const std::string& name);
void set_constant(Calibration& c, const std::string& name, double value);

// Reads `name,value,unit,source` rows (extra columns ignored). Constants missing from the file keep
// their defaults. Throws CsvError naming file, line and column for: missing header or column,
// non-numeric or non-finite or negative value, unknown name, unit different from the documented one,
// duplicated name.
Calibration load_calibration(const std::string& csv_path);
// Writes every constant as `name,value,unit,source,meaning`; `source` says where the values came
// from (e.g. "default prior", "fit: data.csv, 812 train rows"), `meaning` is the documentation above.
void save_calibration(const Calibration& c, const std::string& csv_path, const std::string& source);

}  // namespace arlab::model
