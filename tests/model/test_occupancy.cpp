// Occupancy and cluster capacity: hand-checked blocks_per_sm cases, the docs/model.md H200 cluster
// facts, GpuSpec presets, emulated-rank partitions and gpu_spec_from_properties. The comparison with
// the toolkit's own occupancy calculator is tests/model/test_occupancy_oracle.cpp.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/calibration_derive.h"
#include "model/gpu_spec.h"
#include "model/model_terms.h"
#include "model/occupancy.h"
#include "tests/catch.h"


using namespace arlab;
using namespace arlab::model;

TEST_CASE("blocks_per_sm: hand-checked cases", "[occupancy]") {
  const GpuSpec h = gpu_preset("h200_sxm");
  CHECK(blocks_per_sm(h, 1024, 64, 0) == 1);   // 64 regs x 1024 threads = the whole register file
  CHECK(blocks_per_sm(h, 1024, 65, 0) == 0);   // 65 regs -> 2304 per warp x 32 warps > 65536
  CHECK(blocks_per_sm(h, 128, 32, 0) == 16);   // warps: 64 / 4
  CHECK(blocks_per_sm(h, 32, 16, 0) == 32);    // block limit
  CHECK(blocks_per_sm(h, 256, 0, 100 * 1024) == 2);  // (100K + 1K reserved) -> 2 per 228 KB
  CHECK(blocks_per_sm(h, 256, 0, 227 * 1024) == 1);
  CHECK(blocks_per_sm(h, 256, 0, 227 * 1024 + 1) == 0);
  CHECK(blocks_per_sm(h, 1025, 0, 0) == 0);
  const OccupancyLimits l = occupancy_limits(h, 96, 40, 0);
  CHECK(l.regs_allocated_per_block == 1280 * 3);  // 40 x 32 = 1280 (a multiple of 256) x 3 warps
}

TEST_CASE("max_active_clusters reproduces the H200 facts of docs/model.md", "[occupancy][cluster]") {
  const GpuSpec h = gpu_preset("h200_sxm");
  CHECK(max_active_clusters(h, 8, 1) == 15);  // 120 SMs usable at cs 8
  CHECK(max_active_clusters(h, 8, 1) * 8 == 120);
  CHECK(max_active_clusters(h, 4, 1) == 30);  // 120 SMs at cs 4
  CHECK(max_active_clusters(h, 2, 1) == 66);  // lone TPCs count for cs <= 2: all 132 SMs
  CHECK(max_active_clusters(h, 1, 1) == 132);
  CHECK(max_active_clusters(h, 1, 4) == 528);
  // Two blocks per SM: sum floor(2 * gpc / 8) = 4+4+4*5+2 = 30.
  CHECK(max_active_clusters(h, 8, 2) == 30);
  // The min(k, 8) cap.
  CHECK(max_active_clusters(h, 8, 16) == max_active_clusters(h, 8, 8));
  CHECK(max_active_clusters(h, 2, 16) == max_active_clusters(h, 2, 8));
  CHECK(max_active_clusters(h, 8, 0) == 0);
  CHECK(max_active_clusters(h, 16, 1) == 0);  // beyond the portable maximum
  CHECK(max_active_clusters(gpu_preset("a100_sxm"), 2, 1) == 0);  // no clusters below cc 9
}

TEST_CASE("presets are valid and self-consistent", "[gpu_spec]") {
  for (const auto& name : gpu_preset_names()) {
    const GpuSpec s = gpu_preset(name);
    INFO(name);
    CHECK_NOTHROW(validate(s));
    CHECK(s.name == name);
    CHECK(s.max_warps_per_sm * s.warp_size == s.max_threads_per_sm);
    CHECK(s.link == LinkKind::nvlink);
    CHECK(s.link_gbps > 0);
  }
  CHECK(gpu_preset("h200_sxm").sm_count == 132);
  CHECK(gpu_preset("b200").sm_count == 148);
  CHECK(gpu_preset("h20").sm_count == 78);
  CHECK_THROWS_AS(gpu_preset("h300"), InvalidArgument);
  CHECK(preset_for_device_name("NVIDIA H200") == "h200_sxm");
  CHECK(preset_for_device_name("NVIDIA H100 80GB HBM3") == "h100_sxm");
  CHECK(preset_for_device_name("NVIDIA H20") == "h20");
  CHECK(preset_for_device_name("NVIDIA B200") == "b200");
  CHECK(preset_for_device_name("NVIDIA A100-SXM4-80GB") == "a100_sxm");
  CHECK(preset_for_device_name("Tesla V100") == "");
}

TEST_CASE("sm_partition: multiples of 8 SMs on Hopper, local link, measured cluster groups", "[gpu_spec]") {
  const GpuSpec h = gpu_preset("h200_sxm");
  const int expect[][2] = {{2, 64}, {4, 32}, {8, 16}, {16, 8}};
  for (const auto& e : expect) {
    const GpuSpec p = sm_partition(h, e[0]);
    INFO("N = " << e[0]);
    CHECK(p.sm_count == e[1]);
    CHECK(p.link == LinkKind::local);
    CHECK(p.hbm_gbps == Approx(h.hbm_gbps / e[0]));
    // Measured on an H200 (data/h200/probes/cluster_placement_emulated.csv, checked row by row below): clusters
    // of 4 fit S - 4 SMs, of 8 S - 8; 8-SM partitions (N = 16) keep the assumed single group of 8.
    CHECK(max_active_clusters(p, 8, 1) == (e[1] >= 16 ? e[1] / 8 - 1 : 1));
    CHECK(max_active_clusters(p, 4, 1) == (e[1] >= 16 ? e[1] / 4 - 1 : 2));
    CHECK(max_active_clusters(p, 2, 1) == e[1] / 2);
    // At several blocks per SM, per block layer: the H100 probe's 62 / 58 SMs' worth at S = 64, S - 4 / S - 8 at
    // S = 32 and 16 (data/h100/probes/cluster_capacity_emulated.csv, checked row by row below).
    if (e[1] >= 16) {
      const int sms4 = e[1] == 64 ? 62 : e[1] - 4, sms8 = e[1] == 64 ? 58 : e[1] - 8;
      for (int k : {2, 4, 8}) {
        INFO("blocks per SM " << k);
        CHECK(max_active_clusters(p, 4, k) == k * sms4 / 4);
        CHECK(max_active_clusters(p, 8, k) == k * sms8 / 8);
        CHECK(max_active_clusters(p, 2, k) == k * e[1] / 2);
      }
      CHECK(max_active_clusters(p, 4, 32) == max_active_clusters(p, 4, 8));  // the cap of 8 blocks per SM
    }
    CHECK_NOTHROW(validate(p));
  }
  CHECK(sm_partition(gpu_preset("a100_sxm"), 8).sm_count == 12);  // cc 8: multiples of 2, 108/8 = 13.5 -> 12
  CHECK_THROWS_AS(sm_partition(gpu_preset("h20"), 16), InvalidArgument);  // 78/16 < 8
  CHECK_THROWS_AS(sm_partition_with_count(h, 60, 2), InvalidArgument);   // not a multiple of 8
}

TEST_CASE("gpu_spec_from_properties: queried numbers win, preset fills the rest", "[gpu_spec]") {
  DeviceProperties d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.max_threads_per_sm = 2048;
  d.max_threads_per_block = 1024;
  d.max_blocks_per_sm = 32;
  d.regs_per_sm = 65536;
  d.regs_per_block = 65536;
  d.smem_per_sm = 233472;
  d.smem_per_block_optin = 232448;
  d.reserved_smem_per_block = 1024;
  d.l2_bytes = 52428800;
  d.sm_clock_khz = 1980000;
  const GpuSpec s = gpu_spec_from_properties(d);
  CHECK(s.sm_count == 132);
  CHECK(s.hbm_gbps == 4800);  // from the preset (no memory clock given)
  CHECK(max_active_clusters(s, 8, 1) == 15);
  CHECK(s.sm_clock_ghz == Approx(1.98));
  for (int tpb : {64, 128, 256, 512, 1024})
    CHECK(blocks_per_sm(s, tpb, 64, 0) == blocks_per_sm(gpu_preset("h200_sxm"), tpb, 64, 0));

  DeviceProperties unknown = d;
  unknown.name = "Mystery GPU";
  CHECK_THROWS_AS(gpu_spec_from_properties(unknown), InvalidArgument);  // no HBM bandwidth source
  unknown.memory_clock_khz = 2619000;
  unknown.memory_bus_width_bits = 5120;
  const GpuSpec u = gpu_spec_from_properties(unknown);
  CHECK(u.hbm_gbps == Approx(2.0 * 2619e6 * 640 / 1e9));
  CHECK(u.link == LinkKind::local);
  CHECK(max_active_clusters(u, 8, 1) == 132 / 8);  // assumed 8-SM groups
  DeviceProperties bad = d;
  bad.sm_count = 0;
  CHECK_THROWS_AS(gpu_spec_from_properties(bad), InvalidArgument);
}

// The emulated partitions' cluster placement as the probe measured it (scripts/probes/cluster_placement.cu,
// grids of one block per SM of the partition, each block spinning 20 us): where blocks may share an SM
// (`shared`), the grid uses exactly the SMs the model's layout lets clusters of that size occupy at
// once, and its busiest SM holds the blocks `place` puts there; where they may not (`one_per_sm`),
// the launch takes a second wave exactly when the model says the clusters do not all fit at once.
TEST_CASE("sm_partition: the cluster layout is the measured placement", "[gpu_spec]") {
  const std::string path = std::string(ARLAB_SOURCE_DIR) + "/data/h200/probes/cluster_placement_emulated.csv";
  std::ifstream in(path);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "nranks,sms_per_rank,rank,variant,cluster,tpb,grid,distinct_sms,max_blocks_per_sm,best_us");
  constexpr double kSpinUs = 20.0;  // the probe's kSpinNs
  int checked = 0;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::vector<std::string> f;
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    REQUIRE(f.size() == 10);
    const int nranks = std::stoi(f[0]), sms = std::stoi(f[1]), cluster = std::stoi(f[4]), grid = std::stoi(f[6]);
    if (grid != sms) continue;
    INFO(line);
    const GpuSpec p = sm_partition(gpu_preset("h200_sxm"), nranks);
    REQUIRE(p.sm_count == sms);
    const int fit = max_active_clusters(p, cluster, 1);
    if (f[3] == "shared") {
      CHECK(std::stoi(f[7]) == std::min(grid, fit * cluster));
      CHECK(std::stoi(f[8]) == detail::place(p, grid / cluster, cluster).blocks_per_used_sm);
    } else {
      REQUIRE(f[3] == "one_per_sm");
      CHECK((std::stod(f[9]) > 1.5 * kSpinUs) == (grid / cluster > fit));
    }
    ++checked;
  }
  CHECK(checked == 96);  // N = 2, 4, 8 x ranks 0, 1 x 2 variants x clusters 1, 2, 4, 8 x tpb 128, 1024
}

// The partitions' residency at several blocks per SM as the capacity probe measured it on an H100
// (scripts/probes/cluster_capacity.cu, data/h100/probes/cluster_capacity_emulated.csv: grids of k x S blocks,
// k = 1-16, of a kernel that only the 64 warps and 32 blocks of an SM limit, each block spinning 20 us from
// its start): the blocks that start in the first wave are what the model's capacity lets be resident
// (docs/model.md, "Where clusters land at several blocks per SM"), and so is what
// cudaOccupancyMaxActiveClusters reported in the partition.
TEST_CASE("sm_partition: clusters resident at several blocks per SM are the measured ones", "[gpu_spec]") {
  const std::string path = std::string(ARLAB_SOURCE_DIR) + "/data/h100/probes/cluster_capacity_emulated.csv";
  std::ifstream in(path);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  REQUIRE(line ==
          "nranks,sms_per_rank,rank,cluster,tpb,blocks_per_sm_asked,grid,resident_blocks,waves,max_first_wave_per_sm,"
          "distinct_sms,api_clusters,best_us");
  int checked = 0, beyond_one_wave = 0;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::vector<std::string> f;
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    REQUIRE(f.size() == 13);
    INFO(line);
    const int nranks = std::stoi(f[0]), sms = std::stoi(f[1]), cluster = std::stoi(f[3]), tpb = std::stoi(f[4]);
    const int grid = std::stoi(f[6]), resident = std::stoi(f[7]), waves = std::stoi(f[8]), api = std::stoi(f[11]);
    const GpuSpec p = sm_partition(gpu_preset("h100_sxm"), nranks);
    REQUIRE(p.sm_count == sms);
    const int bps = blocks_per_sm(p, tpb, 16, 0);  // the probe kernel: few registers, no shared memory
    REQUIRE(bps == std::min(32, 2048 / tpb));
    // The probe launches clusters of 1 with the cluster attribute too, and a cluster launch of any size is held
    // to 8 blocks per SM (arlab's kernels launch clusters of 1 without it: max_active_clusters' bps x S).
    const int fit = cluster == 1 ? std::min(bps, 8) * sms : max_active_clusters(p, cluster, bps);
    CHECK(resident == std::min(grid, fit * cluster));
    CHECK(waves == (grid + fit * cluster - 1) / (fit * cluster));
    if (cluster > 1) CHECK(api == fit);
    if (grid > fit * cluster) ++beyond_one_wave;
    ++checked;
  }
  CHECK(checked == 228);         // N = 2, 4, 8 x clusters 1, 2, 4, 8 x tpb 32-256 x k = 1-16 (<= 2048 threads)
  CHECK(beyond_one_wave == 60);  // every cluster size at k = 16, clusters of 4 and 8 at k = 8 too
}

// The same facts as `arlab calibrate` measures them (bench cluster_placement, rank 0 of N = 2, 4 and 8;
// data/calibration/h200_emulated_n{2,4,8}_placement_microbench.csv): per partition and cluster size, the SMs a
// grid of one block per SM used and the most blocks on one SM are what the model's layout and `place`
// give, and where blocks may not share an SM the launch takes a second wave exactly when the model says
// the clusters do not all fit.
TEST_CASE("sm_partition: the cluster layout is what arlab calibrate measured", "[gpu_spec]") {
  std::vector<MicrobenchRow> rows;
  for (int n : {2, 4, 8}) {
    const auto run = load_microbench(std::string(ARLAB_SOURCE_DIR) + "/data/calibration/h200_emulated_n" +
                                     std::to_string(n) + "_placement_microbench.csv");
    rows.insert(rows.end(), run.begin(), run.end());
  }
  constexpr double kSpinUs = 20.0;  // calibrate/bench_cluster_placement.cu kSpinNs
  int checked = 0;
  for (const MicrobenchRow& r : rows) {
    REQUIRE(r.bench == "cluster_placement");
    INFO(r.nranks << " ranks, " << r.variant << ", cluster " << r.cluster << ", " << r.metric << " " << r.value);
    const GpuSpec p = sm_partition(gpu_preset("h200_sxm"), r.nranks);
    REQUIRE(p.sm_count == r.sms);
    const int grid = static_cast<int>(r.size), fit = max_active_clusters(p, r.cluster, 1);
    if (r.variant == "shared" && r.metric == "sms_used") CHECK(r.value == std::min(grid, fit * r.cluster));
    if (r.variant == "shared" && r.metric == "max_blocks_per_sm")
      CHECK(r.value == detail::place(p, grid / r.cluster, r.cluster).blocks_per_used_sm);
    if (r.variant == "one_per_sm" && r.metric == "duration_us") CHECK((r.value > 1.5 * kSpinUs) == (grid / r.cluster > fit));
    ++checked;
  }
  CHECK(checked == 72);  // N = 2, 4, 8 x 2 variants x clusters 1, 2, 4, 8 x 3 metrics
}
