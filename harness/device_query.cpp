// Implementation of harness/device_query.h.
#include "harness/device_query.h"

#include <cuda_runtime.h>

#include <fstream>
#include <sstream>
#include <string>

#include "harness/check.h"

namespace arlab::harness {
namespace {

// "580.159.04" from the first line of /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX
// x86_64 Kernel Module  580.159.04  ..." or "... Open Kernel Module for x86_64  580.159.04 ..."):
// the first word made of digits and dots with a dot in it after "Kernel Module"; "" when
// unreadable (containers may hide it).
std::string kernel_module_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  const std::string key = "Kernel Module";
  const size_t at = line.find(key);
  if (at == std::string::npos) return "";
  std::istringstream rest(line.substr(at + key.size()));
  for (std::string word; rest >> word;)
    if (word.find('.') != std::string::npos && word.find_first_not_of("0123456789.") == std::string::npos) return word;
  return "";
}

int attribute(cudaDeviceAttr a, int ordinal) {
  int v = 0;
  ARLAB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, ordinal));
  return v;
}

}  // namespace

int require_cuda_devices(const std::string& who, int ordinal) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count < 1) {
    std::string reason = "the CUDA runtime lists 0 devices";
    if (err != cudaSuccess) reason = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    if (err == cudaErrorInsufficientDriver) reason += "; no NVIDIA driver is loaded, or it is older than the runtime";
    if (err == cudaErrorNoDevice) reason += "; check CUDA_VISIBLE_DEVICES";
    throw CudaError(who + ": no CUDA GPU is visible (" + reason +
                    "). It needs one; the CPU commands (predict, validate, fit, numerics, seed --mode predict) "
                    "do not.");
  }
  if (ordinal >= count)
    throw InvalidArgument("--device = " + std::to_string(ordinal) + " but " + std::to_string(count) +
                          " CUDA device(s) are visible (ordinals 0 to " + std::to_string(count - 1) + ")");
  return count;
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

DeviceInfo query_device(int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  cudaDeviceProp prop{};
  ARLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  int driver_api = 0, runtime = 0;
  ARLAB_CUDA_CHECK(cudaDriverGetVersion(&driver_api));
  ARLAB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  info.name = prop.name;
  const std::string module = kernel_module_version();
  info.driver = (module.empty() ? std::string() : module + " ") + "(CUDA " + cuda_version_text(driver_api) + ")";
  info.runtime = cuda_version_text(runtime);

  model::DeviceProperties& p = info.props;
  p.name = prop.name;
  p.cc_major = prop.major;
  p.cc_minor = prop.minor;
  p.sm_count = prop.multiProcessorCount;
  p.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  p.max_threads_per_block = prop.maxThreadsPerBlock;
  p.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  p.regs_per_sm = prop.regsPerMultiprocessor;
  p.regs_per_block = prop.regsPerBlock;
  p.smem_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  p.smem_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  p.reserved_smem_per_block = static_cast<int>(prop.reservedSharedMemPerBlock);
  p.l2_bytes = prop.l2CacheSize;
  p.sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  p.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  p.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  info.spec = model::gpu_spec_from_properties(p);
  return info;
}

}  // namespace arlab::harness
