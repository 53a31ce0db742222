// GpuSpec: the hardware facts the occupancy calculator, the launch-configuration policies and the
// timing model need, as one plain struct. Presets hold datasheet / occupancy-calculator numbers for
// the GPUs arlab targets; `gpu_spec_from_properties` builds one from numbers the harness queries on
// the device; `sm_partition` gives the spec one emulated rank sees (docs/nodes.md). Pure C++, no CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.h"  // InvalidArgument

namespace arlab::model {

// Where a rank's peer traffic goes: over NVLink to other GPUs, or to the same GPU's memory
// (the emulated node of docs/nodes.md, where all ranks share one GPU).
enum class LinkKind { local, nvlink };

const char* to_string(LinkKind k);
LinkKind parse_link(const std::string& s);  // "local" or "nvlink"; throws InvalidArgument otherwise

struct GpuSpec {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  // Per-SM / per-block limits, as cudaDeviceProp reports them and cuda_occupancy.h uses them.
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int max_warps_per_sm = 0;       // max_threads_per_sm / warp_size
  int regs_per_sm = 0;            // 32-bit registers per SM
  int max_regs_per_block = 0;
  int max_regs_per_thread = 0;    // ISA limit (255); the compiler never assigns more
  int reg_alloc_unit = 0;         // registers: a warp's allocation is rounded up to this many
  int warp_alloc_granularity = 0; // SM sub-partitions: registers are split evenly across them and
                                  // the hardware's per-block check rounds a block's warps up to it
  int smem_per_sm = 0;            // bytes of shared memory per SM (maximum carveout)
  int max_smem_per_block_optin = 0;  // bytes a block may use after opting in
  int smem_alloc_unit = 0;        // bytes: a block's shared memory is rounded up to this
  int reserved_smem_per_block = 0;   // bytes the driver reserves per block (cc >= 8)
  std::int64_t l2_bytes = 0;
  double hbm_gbps = 0;            // datasheet HBM bandwidth, GB/s (1e9 bytes/s)
  LinkKind link = LinkKind::nvlink;
  double link_gbps = 0;           // NVLink bandwidth per direction per GPU, GB/s; 0 for local
  // Cluster placement (docs/model.md): SMs of each GPC that can host clusters, plus TPCs (2 SMs each)
  // outside those GPCs that can host clusters of at most 2 blocks.
  std::vector<int> gpc_sms;
  int lone_tpcs = 0;
  // Measured where the GPC groups above do not say it: the SMs clusters of 4 / of 8 blocks can occupy
  // at once when only one block fits an SM (0: as gpc_sms gives). The emulated partitions set them.
  int one_block_cluster4_sms = 0;
  int one_block_cluster8_sms = 0;
  // The same at several blocks per SM: the SMs' worth of block slots per block layer that clusters of 4 / of
  // 8 can fill at once, k blocks per SM holding k x that many blocks (0: as at one block per SM, else
  // as gpc_sms gives). The emulated partitions set them.
  int several_blocks_cluster4_sms = 0;
  int several_blocks_cluster8_sms = 0;
  int max_cluster_size = 1;       // portable maximum (8 on cc >= 9.0); 1 = no clusters
  double sm_clock_ghz = 0;        // maximum boost clock
  std::string notes;              // provenance of the non-queryable facts (presets say what is assumed)
};

std::vector<std::string> gpu_preset_names();
// Throws InvalidArgument naming the unknown preset and listing the known ones.
GpuSpec gpu_preset(const std::string& name);
// The preset whose device a driver-reported name ("NVIDIA H200", "NVIDIA H100 80GB HBM3", ...)
// denotes; empty string when none matches.
std::string preset_for_device_name(const std::string& device_name);

// Green-context partition granularity (CUDA driver API docs, Green Contexts, "guideline for each
// compute architecture"): cc 9.0+: at least 8 SMs and a multiple of 8; cc 8.x: at least 4 SMs and a
// multiple of 2; cc 7.x: at least 2 and a multiple of 2; older: 1.
int sm_partition_granularity(int cc_major);
int sm_partition_min(int cc_major);

// The spec one of `nranks` emulated ranks sees (docs/nodes.md): an equal partition of the SMs, rounded
// down to the partition granularity (132 SMs, N = 2/4/8/16 -> 64/32/16/8), link = local, and an
// equal share of HBM bandwidth and L2 (all ranks run at once on the one GPU).
// Cluster capacity: on cc >= 9 the partition is taken as groups of 8 SMs, each inside one GPC
// (gpc_sms = {8, 8, ...}, no lone TPCs), less what the probes measured: a partition of S >= 16 SMs
// holds clusters of 4 on S - 4 SMs and of 8 on S - 8 at one block per SM (docs/model.md "Where
// clusters land"; one_block_cluster*_sms), and per block layer at several blocks per SM 62 / 58 SMs'
// worth at S = 64, S - 4 / S - 8 at S = 32 and 16 (docs/model.md "Where clusters land at several
// blocks per SM"; several_blocks_cluster*_sms). Below cc 9 there are no clusters.
// Throws InvalidArgument when a partition would be smaller than the minimum.
GpuSpec sm_partition(const GpuSpec& whole, int nranks);
// The same with an explicit SM count per rank (e.g. as recorded in a measurement row).
GpuSpec sm_partition_with_count(const GpuSpec& whole, int sms_per_rank, int nranks);

// Plain numbers the harness reads from the device (cudaDeviceGetAttribute / cudaDeviceProp);
// model/ stays CUDA-free. Facts the runtime does not expose (HBM and NVLink bandwidth, GPC layout)
// come from the preset matching `name` when there is one, else from the fields below.
struct DeviceProperties {
  std::string name;                 // cudaDeviceProp::name
  int cc_major = 0, cc_minor = 0;   // major, minor
  int sm_count = 0;                 // multiProcessorCount
  int max_threads_per_sm = 0;       // maxThreadsPerMultiProcessor
  int max_threads_per_block = 0;    // maxThreadsPerBlock
  int max_blocks_per_sm = 0;        // maxBlocksPerMultiProcessor
  int regs_per_sm = 0;              // regsPerMultiprocessor
  int regs_per_block = 0;           // regsPerBlock
  int smem_per_sm = 0;              // sharedMemPerMultiprocessor
  int smem_per_block_optin = 0;     // sharedMemPerBlockOptin
  int reserved_smem_per_block = 0;  // reservedSharedMemPerBlock
  std::int64_t l2_bytes = 0;        // l2CacheSize
  int sm_clock_khz = 0;             // cudaDevAttrClockRate
  int memory_clock_khz = 0;         // cudaDevAttrMemoryClockRate (0 = unknown)
  int memory_bus_width_bits = 0;    // cudaDevAttrGlobalMemoryBusWidth (0 = unknown)
  double link_gbps = 0;             // per direction, when the harness knows it (NVML); 0 = unknown
  std::vector<int> gpc_sms;         // when known; empty = take the preset's or assume 8-SM groups
  int lone_tpcs = 0;
};

// Throws InvalidArgument when a field is out of range (names the field and the value).
GpuSpec gpu_spec_from_properties(const DeviceProperties& props);

// Throws InvalidArgument naming the first inconsistent field (used on every spec a user can supply).
void validate(const GpuSpec& spec);

}  // namespace arlab::model
