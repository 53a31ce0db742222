// GpuSpec presets, the emulated-rank partition and the spec built from queried device properties.
// Sources, used below by short name:
//   [PG]   CUDA C++ Programming Guide, "Compute Capabilities", technical specifications table.
//   [OCC]  CUDA 13.0 toolkit header cuda_occupancy.h (the occupancy calculator's own constants).
//   [PROP] cudaDeviceProp values the runtime reports on that GPU generation.
//   [DS]   NVIDIA product datasheet of the GPU (H100, H200, B200, A100, H20).
//   [GC]   CUDA driver API docs, Green Contexts: SM partition minimum and alignment per architecture.
//   [D7]   docs/model.md: cluster capacity measured on an H200 with cudaOccupancyMaxActiveClusters.
//   [D8]   docs/model.md "Where clusters land": the emulated partitions' cluster placement, measured on an H200.
//   [D9]   docs/model.md "Where clusters land at several blocks per SM": the partitions' cluster capacity at 8
//          blocks per SM, measured on an H100.
#include "model/gpu_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

#include "common/problem.h"

namespace arlab::model {

const char* to_string(LinkKind k) { return k == LinkKind::local ? "local" : "nvlink"; }

LinkKind parse_link(const std::string& s) {
  if (s == "local") return LinkKind::local;
  if (s == "nvlink") return LinkKind::nvlink;
  throw InvalidArgument("unknown link '" + s + "' (expected local or nvlink)");
}

namespace {

// Limits shared by cc 8.0, 9.0 and 10.0 (all from [PG] unless noted).
GpuSpec common_datacenter_limits() {
  GpuSpec s;
  s.warp_size = 32;                 // [PG]
  s.max_threads_per_sm = 2048;      // [PG] cc 8.0 / 9.0 / 10.0
  s.max_threads_per_block = 1024;   // [PG]
  s.max_blocks_per_sm = 32;         // [PG]; [OCC] cudaOccMaxBlocksPerMultiprocessor: 32 for 8.0, 9.x, 10.0
  s.max_warps_per_sm = 64;          // [PG] 2048 / 32
  s.regs_per_sm = 65536;            // [PG] 64K 32-bit registers per SM
  s.max_regs_per_block = 65536;     // [PG]
  s.max_regs_per_thread = 255;      // [PG]
  s.reg_alloc_unit = 256;           // [OCC] cudaOccRegAllocationGranularity
  s.warp_alloc_granularity = 4;     // [OCC] cudaOccSubPartitionsPerMultiprocessor
  s.smem_alloc_unit = 128;          // [OCC] cudaOccSMemAllocationGranularity, cc >= 8
  s.reserved_smem_per_block = 1024; // [PROP] reservedSharedMemPerBlock = 1 KB on cc >= 8.0
  return s;
}

GpuSpec hopper_base() {
  GpuSpec s = common_datacenter_limits();
  s.cc_major = 9;
  s.cc_minor = 0;
  s.smem_per_sm = 233472;              // [PG] 228 KB per SM on cc 9.0 ([PROP] sharedMemPerMultiprocessor)
  s.max_smem_per_block_optin = 232448; // [PG] 227 KB ([PROP] sharedMemPerBlockOptin)
  s.max_cluster_size = 8;              // [PG] portable cluster size limit on cc 9.0
  return s;
}

// The GPC layout measured on an H200 [D7]: 8 GPCs with {18,18,16,16,16,16,16,8} cluster-capable
// SMs plus 4 TPCs (8 SMs) that host clusters of at most 2 blocks: 124 + 8 = 132 SMs.
std::vector<int> gh100_132sm_gpcs() { return {18, 18, 16, 16, 16, 16, 16, 8}; }
constexpr int kGh100_132sm_lone_tpcs = 4;

GpuSpec make_h200_sxm() {
  GpuSpec s = hopper_base();
  s.name = "h200_sxm";
  s.sm_count = 132;                     // [DS] H200 SXM, 132 SMs ([PROP] multiProcessorCount)
  s.l2_bytes = 60LL * 1024 * 1024;      // [PROP] l2CacheSize = 62914560 on the lent H200 (driver 580.159.04; calibrate body_round reuse rows: 1/8 of it = 7864320 B)
  s.hbm_gbps = 4800;                    // [DS] 4.8 TB/s HBM3e
  s.link = LinkKind::nvlink;
  s.link_gbps = 450;                    // [DS] NVLink 900 GB/s total = 450 GB/s per direction
  s.gpc_sms = gh100_132sm_gpcs();       // [D7] measured on an H200
  s.lone_tpcs = kGh100_132sm_lone_tpcs; // [D7]
  s.sm_clock_ghz = 1.98;                // [DS] max boost 1980 MHz (same as H100 SXM)
  s.notes = "GPC layout measured on an H200 (docs/model.md)";
  return s;
}

GpuSpec make_h100_sxm() {
  GpuSpec s = hopper_base();
  s.name = "h100_sxm";
  s.sm_count = 132;                     // [DS] H100 SXM5, 132 SMs
  s.l2_bytes = 50LL * 1024 * 1024;      // [DS] 50 MB L2
  s.hbm_gbps = 3350;                    // [DS] 3.35 TB/s HBM3 (80 GB)
  s.link = LinkKind::nvlink;
  s.link_gbps = 450;                    // [DS] NVLink 4, 900 GB/s total = 450 GB/s per direction
  s.gpc_sms = gh100_132sm_gpcs();       // ASSUMED equal to the H200 measurement: same GH100 die with
  s.lone_tpcs = kGh100_132sm_lone_tpcs; // 132 SMs enabled; floorsweeping may differ per chip
  s.sm_clock_ghz = 1.98;                // [DS] max boost 1980 MHz
  s.notes = "GPC layout assumed equal to the H200 measurement (same GH100 die, 132 SMs)";
  return s;
}

GpuSpec make_h20() {
  GpuSpec s = hopper_base();
  s.name = "h20";
  s.sm_count = 78;                      // docs/policies.md other-GPU row (78 SMs); GH100 with 78 SMs enabled
  s.l2_bytes = 60LL * 1024 * 1024;      // 60 MB as listed by third-party spec tables (no NVIDIA datasheet at hand)
  s.hbm_gbps = 4000;                    // [DS] 4.0 TB/s HBM3 (96 GB)
  s.link = LinkKind::nvlink;
  s.link_gbps = 450;                    // [DS] NVLink 900 GB/s total
  s.gpc_sms = {10, 10, 10, 10, 10, 10, 10, 8};  // ASSUMED: 39 TPCs spread over 8 GPCs; query the device
  s.lone_tpcs = 0;
  s.sm_clock_ghz = 1.98;                // ASSUMED equal to H100 SXM (same die)
  s.notes = "GPC layout and clock assumed (not published); L2 from third-party listings";
  return s;
}

GpuSpec make_b200() {
  GpuSpec s = common_datacenter_limits();
  s.name = "b200";
  s.cc_major = 10;
  s.cc_minor = 0;
  s.sm_count = 148;                     // 2 dies x 74 SMs (Chips and Cheese B200 article; docs/policies.md row)
  s.smem_per_sm = 233472;               // [PG] 228 KB on cc 10.0
  s.max_smem_per_block_optin = 232448;  // [PG] 227 KB
  s.max_cluster_size = 8;               // [PG] portable cluster size
  s.l2_bytes = 126LL * 1024 * 1024;     // 126 MB (Chips and Cheese B200 article)
  s.hbm_gbps = 8000;                    // [DS] 8 TB/s HBM3e
  s.link = LinkKind::nvlink;
  s.link_gbps = 900;                    // [DS] NVLink 5, 1.8 TB/s total = 900 GB/s per direction
  s.gpc_sms = {20, 18, 18, 18, 20, 18, 18, 18};  // ASSUMED: 4 GPCs per die, 37 TPCs per die enabled
  s.lone_tpcs = 0;
  s.sm_clock_ghz = 1.98;                // ASSUMED ~ H100 SXM (Chips and Cheese: "similar clock speeds")
  s.notes = "GPC layout and clock assumed (not published)";
  return s;
}

GpuSpec make_a100_sxm() {
  GpuSpec s = common_datacenter_limits();
  s.name = "a100_sxm";
  s.cc_major = 8;
  s.cc_minor = 0;
  s.sm_count = 108;                     // [DS] A100 SXM4, 108 SMs
  s.smem_per_sm = 167936;               // [PG] 164 KB per SM on cc 8.0
  s.max_smem_per_block_optin = 166912;  // [PG] 163 KB
  s.max_cluster_size = 1;               // [PG] clusters need cc >= 9.0
  s.l2_bytes = 40LL * 1024 * 1024;      // [DS] 40 MB L2
  s.hbm_gbps = 2039;                    // [DS] 2,039 GB/s HBM2e (80 GB SXM)
  s.link = LinkKind::nvlink;
  s.link_gbps = 300;                    // [DS] NVLink 3, 600 GB/s total = 300 GB/s per direction
  s.gpc_sms = {16, 16, 16, 16, 16, 14, 14};  // 7 GPCs, 54 TPCs (A100 whitepaper); unused: no clusters
  s.lone_tpcs = 0;
  s.sm_clock_ghz = 1.41;                // [DS] boost 1410 MHz
  s.notes = "no thread-block clusters below cc 9.0";
  return s;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

std::vector<std::string> gpu_preset_names() { return {"h100_sxm", "h200_sxm", "b200", "a100_sxm", "h20"}; }

GpuSpec gpu_preset(const std::string& name) {
  if (name == "h100_sxm") return make_h100_sxm();
  if (name == "h200_sxm") return make_h200_sxm();
  if (name == "b200") return make_b200();
  if (name == "a100_sxm") return make_a100_sxm();
  if (name == "h20") return make_h20();
  std::string known;
  for (const auto& n : gpu_preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw InvalidArgument("unknown GPU preset '" + name + "' (known: " + known + ")");
}

std::string preset_for_device_name(const std::string& device_name) {
  std::string n = device_name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  // Order matters: "H200" contains "H20".
  if (contains(n, "H200")) return "h200_sxm";
  if (contains(n, "H100")) return "h100_sxm";
  if (contains(n, "B200")) return "b200";
  if (contains(n, "A100")) return "a100_sxm";
  if (contains(n, "H20")) return "h20";
  return "";
}

int sm_partition_granularity(int cc_major) {
  if (cc_major >= 9) return 8;  // [GC]
  if (cc_major >= 7) return 2;  // [GC]
  return 1;                     // [GC] 6.x
}

int sm_partition_min(int cc_major) {
  if (cc_major >= 9) return 8;   // [GC]
  if (cc_major == 8) return 4;   // [GC]
  if (cc_major == 7) return 2;   // [GC]
  return 1;
}

GpuSpec sm_partition_with_count(const GpuSpec& whole, int sms_per_rank, int nranks) {
  validate(whole);
  if (nranks < 1) throw InvalidArgument("sm_partition: nranks = " + std::to_string(nranks) + " must be >= 1");
  const int gran = sm_partition_granularity(whole.cc_major);
  const int min_sms = sm_partition_min(whole.cc_major);
  if (sms_per_rank < min_sms || sms_per_rank % gran != 0)
    throw InvalidArgument("sm_partition: " + std::to_string(sms_per_rank) +
                          " SMs per rank is not a valid green-context partition on cc " +
                          std::to_string(whole.cc_major) + ".x (minimum " + std::to_string(min_sms) + ", multiple of " +
                          std::to_string(gran) + ")");
  if (static_cast<long long>(sms_per_rank) * nranks > whole.sm_count)
    throw InvalidArgument("sm_partition: " + std::to_string(nranks) + " ranks x " + std::to_string(sms_per_rank) +
                          " SMs exceed the " + std::to_string(whole.sm_count) + " SMs of " + whole.name);
  GpuSpec p = whole;
  p.name = whole.name + "/" + std::to_string(sms_per_rank) + "sm";
  p.sm_count = sms_per_rank;
  p.link = LinkKind::local;
  p.link_gbps = 0;
  p.hbm_gbps = whole.hbm_gbps / nranks;  // all ranks stream at once through the one GPU's HBM
  p.l2_bytes = whole.l2_bytes / nranks;
  if (whole.max_cluster_size > 1) {
    p.gpc_sms.assign(sms_per_rank / 8, 8);  // several blocks per SM: all resident (gpu_spec.h)
    if (sms_per_rank >= 16) {
      // [D8] measured on an H200 (scripts/probes/cluster_placement.cu, data/h200/probes/cluster_placement_emulated.csv;
      // `arlab calibrate` bench cluster_placement, data/calibration/h200_emulated_n{2,4,8}_placement_microbench.csv):
      // one block per SM, clusters of 4 land on S - 4 SMs of a partition of S, clusters of 8 on S - 8.
      p.one_block_cluster4_sms = sms_per_rank - 4;
      p.one_block_cluster8_sms = sms_per_rank - 8;
      // [D9] measured on an H100 (scripts/probes/cluster_capacity.cu, data/h100/probes/cluster_capacity_emulated.csv;
      // the same GH100 die as the H200, whose partitions are assumed alike until the probe runs there): at 8
      // blocks per SM, the blocks resident at once are 8 x (S - 2) in clusters of 4 and 8 x (S - 6) in clusters of 8
      // for S = 64, 8 x (S - 4) and 8 x (S - 8) for S = 32 and 16, as cudaOccupancyMaxActiveClusters reports in
      // the partition.
      p.several_blocks_cluster4_sms = sms_per_rank == 64 ? sms_per_rank - 2 : sms_per_rank - 4;
      p.several_blocks_cluster8_sms = sms_per_rank == 64 ? sms_per_rank - 6 : sms_per_rank - 8;
    }
  } else {
    p.gpc_sms.assign(1, sms_per_rank);
  }
  p.lone_tpcs = 0;
  p.notes = whole.notes + "; emulated rank: " + std::to_string(sms_per_rank) + " of " + std::to_string(whole.sm_count) +
            " SMs, 1/" + std::to_string(nranks) + " of HBM and L2, cluster groups of 8 SMs" +
            (sms_per_rank >= 16 ? std::string(" (one block per SM: clusters of 4 / 8 on S - 4 / S - 8 SMs; several: ") +
                                       std::to_string(p.several_blocks_cluster4_sms) + " / " +
                                       std::to_string(p.several_blocks_cluster8_sms) + " SMs' worth per block layer; measured)"
                                : std::string(" assumed"));
  return p;
}

GpuSpec sm_partition(const GpuSpec& whole, int nranks) {
  if (nranks < 1) throw InvalidArgument("sm_partition: nranks = " + std::to_string(nranks) + " must be >= 1");
  const int gran = sm_partition_granularity(whole.cc_major);
  const int sms = whole.sm_count / nranks / gran * gran;
  if (sms < sm_partition_min(whole.cc_major))
    throw InvalidArgument("sm_partition: " + std::to_string(whole.sm_count) + " SMs cannot be split into " +
                          std::to_string(nranks) + " partitions of at least " +
                          std::to_string(sm_partition_min(whole.cc_major)) + " SMs (multiples of " +
                          std::to_string(gran) + ")");
  return sm_partition_with_count(whole, sms, nranks);
}

namespace {
void require_positive(const std::string& what, long long v) {
  if (v <= 0) throw InvalidArgument("GPU property " + what + " = " + std::to_string(v) + " must be > 0");
}
}  // namespace

void validate(const GpuSpec& s) {
  require_positive("sm_count", s.sm_count);
  require_positive("warp_size", s.warp_size);
  require_positive("max_threads_per_sm", s.max_threads_per_sm);
  require_positive("max_threads_per_block", s.max_threads_per_block);
  require_positive("max_blocks_per_sm", s.max_blocks_per_sm);
  require_positive("max_warps_per_sm", s.max_warps_per_sm);
  require_positive("regs_per_sm", s.regs_per_sm);
  require_positive("max_regs_per_block", s.max_regs_per_block);
  require_positive("max_regs_per_thread", s.max_regs_per_thread);
  require_positive("reg_alloc_unit", s.reg_alloc_unit);
  require_positive("warp_alloc_granularity", s.warp_alloc_granularity);
  require_positive("smem_per_sm", s.smem_per_sm);
  require_positive("max_smem_per_block_optin", s.max_smem_per_block_optin);
  require_positive("smem_alloc_unit", s.smem_alloc_unit);
  require_positive("max_cluster_size", s.max_cluster_size);
  if (s.reserved_smem_per_block < 0)
    throw InvalidArgument("GPU property reserved_smem_per_block = " + std::to_string(s.reserved_smem_per_block) +
                          " must be >= 0");
  if (!(s.hbm_gbps > 0) || !std::isfinite(s.hbm_gbps))
    throw InvalidArgument("GPU property hbm_gbps = " + std::to_string(s.hbm_gbps) + " must be finite and > 0");
  if (!(s.sm_clock_ghz > 0) || !std::isfinite(s.sm_clock_ghz))
    throw InvalidArgument("GPU property sm_clock_ghz = " + std::to_string(s.sm_clock_ghz) + " must be finite and > 0");
  if (s.link == LinkKind::nvlink && !(s.link_gbps > 0))
    throw InvalidArgument("GPU property link_gbps = " + std::to_string(s.link_gbps) +
                          " must be > 0 for an nvlink spec");
  for (int g : s.gpc_sms)
    if (g < 0) throw InvalidArgument("GPU property gpc_sms has a negative entry " + std::to_string(g));
  for (int sms : {s.one_block_cluster4_sms, s.one_block_cluster8_sms, s.several_blocks_cluster4_sms,
                  s.several_blocks_cluster8_sms})
    if (sms < 0 || sms > s.sm_count)
      throw InvalidArgument("GPU property one_block_cluster*_sms / several_blocks_cluster*_sms = " + std::to_string(sms) + " must be in [0, sm_count = " +
                            std::to_string(s.sm_count) + "]");
  if (s.lone_tpcs < 0)
    throw InvalidArgument("GPU property lone_tpcs = " + std::to_string(s.lone_tpcs) + " must be >= 0");
  const int placed = std::accumulate(s.gpc_sms.begin(), s.gpc_sms.end(), 0) + 2 * s.lone_tpcs;
  if (placed > s.sm_count)
    throw InvalidArgument("GPU property gpc_sms + 2*lone_tpcs = " + std::to_string(placed) + " exceeds sm_count = " +
                          std::to_string(s.sm_count));
}

GpuSpec gpu_spec_from_properties(const DeviceProperties& d) {
  GpuSpec s;
  const std::string preset = preset_for_device_name(d.name);
  if (!preset.empty()) s = gpu_preset(preset);
  s.name = d.name;
  s.cc_major = d.cc_major;
  s.cc_minor = d.cc_minor;
  s.sm_count = d.sm_count;
  s.warp_size = 32;
  s.max_threads_per_sm = d.max_threads_per_sm;
  s.max_threads_per_block = d.max_threads_per_block;
  s.max_blocks_per_sm = d.max_blocks_per_sm;
  s.max_warps_per_sm = d.max_threads_per_sm / 32;
  s.regs_per_sm = d.regs_per_sm;
  s.max_regs_per_block = d.regs_per_block;
  s.max_regs_per_thread = 255;                          // [PG] every cc >= 3.5
  s.reg_alloc_unit = 256;                               // [OCC] every supported cc
  s.warp_alloc_granularity = d.cc_major == 6 && d.cc_minor == 0 ? 2 : 4;  // [OCC]
  s.smem_per_sm = d.smem_per_sm;
  s.max_smem_per_block_optin = d.smem_per_block_optin;
  s.smem_alloc_unit = d.cc_major >= 8 ? 128 : 256;      // [OCC]
  s.reserved_smem_per_block = d.reserved_smem_per_block;
  s.l2_bytes = d.l2_bytes;
  s.max_cluster_size = d.cc_major >= 9 ? 8 : 1;         // [PG]
  s.sm_clock_ghz = d.sm_clock_khz / 1e6;
  if (d.memory_clock_khz > 0 && d.memory_bus_width_bits > 0)  // DDR: two transfers per clock
    s.hbm_gbps = 2.0 * d.memory_clock_khz * 1e3 * (d.memory_bus_width_bits / 8.0) / 1e9;
  if (d.link_gbps > 0) {
    s.link_gbps = d.link_gbps;
    s.link = LinkKind::nvlink;
  }
  if (!d.gpc_sms.empty()) {
    s.gpc_sms = d.gpc_sms;
    s.lone_tpcs = d.lone_tpcs;
  } else if (preset.empty() || s.sm_count != gpu_preset(preset).sm_count) {
    // Unknown layout: assume groups of 8 SMs that each host one cluster of up to 8 (as for partitions).
    s.gpc_sms.assign(s.max_cluster_size > 1 ? s.sm_count / 8 : 1, s.max_cluster_size > 1 ? 8 : s.sm_count);
    s.lone_tpcs = 0;
    s.notes = "GPC layout unknown: groups of 8 SMs assumed";
  }
  if (preset.empty()) {
    if (!(s.hbm_gbps > 0))
      throw InvalidArgument("device '" + d.name + "' matches no preset and its memory clock / bus width are unknown: "
                            "cannot derive HBM bandwidth");
    if (!(s.link_gbps > 0)) s.link = LinkKind::local;
  }
  validate(s);
  return s;
}

}  // namespace arlab::model
