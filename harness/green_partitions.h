// Disjoint SM partitions of one GPU, one green context per emulated rank (docs/nodes.md):
// cuDeviceGetDevResource(SM) -> cuDevSmResourceSplitByCount(N groups of `sms_per_rank`) ->
// cuDevResourceGenerateDesc -> cuGreenCtxCreate -> cuGreenCtxStreamCreate. Each partition owns its
// green context and one non-blocking stream in it; kernels launched into that stream (runtime API)
// run only on the partition's SMs, so ranks spin-waiting on each other never starve one another.
#pragma once

#include <vector>

#include "harness/cuda_resources.h"
#include "harness/driver_api.h"

namespace arlab::harness {

struct GreenPartition {
  GreenContext context;
  Stream stream;
  int sm_count = 0;  // SMs the driver gave this partition
};

// Creates `nranks` partitions of exactly `sms_per_rank` SMs each (a multiple of the device's
// granularity, see model::sm_partition_granularity). The primary context of `device` must be
// current. Throws InvalidArgument when the split cannot make that many groups of that size, and
// CudaError on driver failures.
std::vector<GreenPartition> create_green_partitions(const DriverApi& drv, int device, int nranks, int sms_per_rank);

}  // namespace arlab::harness
