// Calibration: the timing model's free constants, each with its unit in its name and a documented
// default. Defaults are priors (physically plausible magnitudes, sources below), NOT fitted to the
// kernel timings the model is judged on; `arlab fit` replaces them by least squares on a training
// split, and `arlab calibrate` microbenchmarks are meant to measure them directly (DESIGN §7).
// Stored as a long-format CSV `name,value,unit,source` (common/calibration_schema.h), read with
// fast-cpp-csv-parser. Every constant has a physical range [min, max] (DESIGN §7: "a fit that
// leaves it explains nothing"), with where it comes from beside it; the reader refuses a value
// outside it, and so do the writer and the fit. Lower bounds of 0 let a fit fold a term into the
// others; a constant the model divides by has a lower bound above 0 (0 would make a time infinite).
#pragma once

#include <string>
#include <vector>

namespace arlab::model {

// X(name, default, min, max, unit, meaning and source of the default); where the range comes from
// is the /* */ comment above each.
#define ARLAB_CALIBRATION_CONSTANTS(X)                                                                              \
  /* range: a fixed launch cost; 100 us: 50x the 1-3 us of a near-empty kernel and over 15x the fastest              \
     measured call (6.5 us, data/h200/seed.csv) */                                                                   \
  X(launch_overhead_us, 2.0, 0.0, 100.0, "us",                                                                       \
    "fixed duration of one launch: block dispatch, control-block read, exit (prior: CUPTI duration of a "            \
    "near-empty kernel is 1-3 us on Hopper; measure with an empty kernel)")                                         \
  /* range: the same bounds as launch_overhead_us: a fixed launch cost */                                            \
  X(cluster_launch_us, 0.3, 0.0, 100.0, "us",                                                                        \
    "extra fixed cost of a cluster launch (cluster > 1): cluster scheduling and the initial cluster barrier (prior)") \
  /* range: 10 us: over 10x any published GPU DRAM latency (pointer chases: several hundred ns) */                   \
  X(dram_latency_ns, 600.0, 0.0, 10000.0, "ns",                                                                      \
    "latency of a load that misses L2 (inputs x and residual); prior: published pointer-chase latencies on "          \
    "H100 are several hundred ns")                                                                                   \
  /* range: 10 us: over 30x the ~200-300 cycles of an L2 hit on Hopper */                                            \
  X(l2_latency_ns, 250.0, 0.0, 10000.0, "ns",                                                                        \
    "latency of an L2 hit: the poll of freshly stored data, local store-to-visible time, flag round trips (prior: "   \
    "~200-300 cycles on Hopper at ~1.8 GHz)")                                                                        \
  /* range: 10 us: 5x and more the 1-2 us NVLink round trips */                                                      \
  X(nvlink_latency_ns, 900.0, 0.0, 10000.0, "ns",                                                                    \
    "one-way time from a store to peer memory until a poll on the peer sees it; a remote load costs twice this "      \
    "(prior: NVLink round trips are ~1-2 us)")                                                                        \
  /* range: at least one 128-byte cache line (the model divides by it); 1 MiB: twice the 256 KB of registers +       \
     228 KB of shared memory an SM of Hopper can receive data into */                                                \
  X(bytes_in_flight_per_sm, 32768.0, 128.0, 1048576.0, "bytes",                                                      \
    "memory bytes one SM keeps outstanding; Little's law: per-SM rate = bytes_in_flight / latency (prior: the "       \
    "order needed to saturate HBM, 3.35 TB/s x 600 ns / 132 SMs = 15 KB, with headroom)")                           \
  /* range: above 0 (the model divides by it); 1024 B/cycle: 8x the 128 B/cycle an SM's L1 delivers on Hopper */     \
  X(sm_l2_bytes_per_cycle, 64.0, 1.0, 1024.0, "bytes/cycle",                                                         \
    "per-SM L1<->L2 data path; caps an SM's load and store rate at this x sm_clock (prior: 64 B/clk per SM)")         \
  /* range: 10 us: 50x the ~400-cycle prior */                                                                       \
  X(block_reduce_fixed_ns, 200.0, 0.0, 10000.0, "ns",                                                                \
    "block-wide sum of squares: warp shuffles, shared-memory exchange, __syncthreads, final warp reduce (prior: "     \
    "~400 cycles)")                                                                                                   \
  /* range: 1 us per warp: 500x the prior; a block has at most 32 warps */                                           \
  X(block_reduce_ns_per_warp, 2.0, 0.0, 1000.0, "ns",                                                                \
    "extra block-reduce time per warp of the block (prior)")                                                         \
  /* range: 10 us: 50x the prior of one cluster barrier */                                                           \
  X(cluster_sync_ns, 200.0, 0.0, 10000.0, "ns",                                                                      \
    "one cluster barrier (barrier.cluster arrive + wait); a cluster reduce takes two (prior)")                       \
  /* range: 10 us: over 10x an L2 round trip, which a DSMEM read beats */                                            \
  X(dsmem_access_ns, 40.0, 0.0, 10000.0, "ns",                                                                       \
    "per block of the cluster: reading one partial sum through distributed shared memory (prior)")                   \
  /* range: 10 ns: 150x the 0.063 ns issue-rate estimate (~20 SM cycles per thread-vector operation) */              \
  X(sm_ns_per_vector_op, 0.065, 0.0, 10.0, "ns",                                                                     \
    "SM-wide issue time of one thread's operation on one 16-byte vector (~16 instructions at 128 thread-"           \
    "instructions per cycle and 1.98 GHz = 0.063 ns)")                                                               \
  /* range: 1 ms: over 300x the ~3 us host-gate skew of DESIGN §6 */                                                 \
  X(rank_skew_us, 0.5, 0.0, 1000.0, "us",                                                                            \
    "start skew between ranks that the first wait on a peer absorbs (prior; DESIGN §6 saw ~3 us with a host gate)")  \
  /* range: 1 us: several times the round trip of one L2 atomic */                                                   \
  X(arrival_atomic_ns, 2.0, 0.0, 1000.0, "ns",                                                                       \
    "per block: the serialized atomic increment of the one-shot arrival counter at one L2 slice (prior)")            \
  /* range: a fraction of the datasheet bandwidth: at most all of it, at least 1 % (the model divides by it) */      \
  X(hbm_efficiency, 0.85, 0.01, 1.0, "fraction",                                                                     \
    "achievable fraction of the datasheet HBM bandwidth (prior: streaming kernels reach 80-90%)")                     \
  /* range: a fraction of the datasheet NVLink bandwidth: at most all of it, at least 1 % (the model divides by      \
     it) */                                                                                                          \
  X(link_efficiency, 0.80, 0.01, 1.0, "fraction",                                                                    \
    "achievable fraction of the per-direction NVLink bandwidth for peer stores (prior)")

struct Calibration {
#define ARLAB_CAL_FIELD(name, def, lo, hi, unit, doc) double name = def;
  ARLAB_CALIBRATION_CONSTANTS(ARLAB_CAL_FIELD)
#undef ARLAB_CAL_FIELD
};

struct CalibrationConstantInfo {
  std::string name;
  double default_value;
  double min_value;  // the physical range [min_value, max_value], in `unit`
  double max_value;
  std::string unit;
  std::string meaning;
};

Calibration default_calibration();
std::vector<CalibrationConstantInfo> calibration_constants();  // in declaration order
// Access a constant by name; throws InvalidArgument listing the known names when unknown.
double get_constant(const Calibration& c, const std::string& name);
void set_constant(Calibration& c, const std::string& name, double value);

// "" when v is within the constant's physical range, else a message naming the constant, the value,
// the range and its unit.
std::string range_violation(const CalibrationConstantInfo& info, double v);
// Throws InvalidArgument naming the first constant of c outside its physical range.
void check_ranges(const Calibration& c);

// Reads `name,value,unit,source` rows (extra columns ignored). Constants missing from the file keep
// their defaults. Throws CsvError naming file, line and column for: missing header or column,
// non-numeric or non-finite value, a value outside the constant's physical range, unknown name,
// unit different from the documented one, duplicated name.
Calibration load_calibration(const std::string& csv_path);
// Writes every constant as `name,value,unit,source,meaning`; `source` says where the values came
// from (e.g. "default prior", "fit: data.csv, 812 train rows"), `meaning` is the documentation above.
// Refuses (check_ranges) a calibration it could not read back; the file is written atomically and
// replaces only an earlier calibration (common/output_file.h).
void save_calibration(const Calibration& c, const std::string& csv_path, const std::string& source);

}  // namespace arlab::model
