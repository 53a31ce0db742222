// What the harness knows about its GPU, read ONCE per process and passed down: the name, driver
// and runtime versions for every CSV row, the queried properties, and the model's GpuSpec built
// from them (model::gpu_spec_from_properties). Ranks get their partition's view through
// model::sm_partition_with_count.
#pragma once

#include <string>

#include "model/gpu_spec.h"

namespace arlab::harness {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string driver;   // kernel-module version when readable (/proc/driver/nvidia/version), + CUDA driver API
  std::string runtime;  // CUDA runtime version, e.g. "13.0"
  model::DeviceProperties props;
  model::GpuSpec spec;  // the whole device
};

// Throws CudaError when the device cannot be queried (no GPU, no driver).
DeviceInfo query_device(int ordinal);

// The number of visible CUDA devices, checked before any context exists: throws CudaError saying
// plainly that no CUDA GPU is visible when cudaGetDeviceCount fails (no driver:
// cudaErrorInsufficientDriver; no device: cudaErrorNoDevice) or finds none, with the runtime's
// reason; `who` starts the message (e.g. "arlab run"). Throws InvalidArgument when `ordinal` is not
// below the count (-1: no ordinal to check).
int require_cuda_devices(const std::string& who, int ordinal);

// "13.0" from a CUDA version number such as 13000.
std::string cuda_version_text(int version);

}  // namespace arlab::harness
