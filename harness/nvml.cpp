// Implementation of harness/nvml.h.
#include "harness/nvml.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>

namespace arlab::harness {
namespace {

// From NVML's API reference (nvml.h): nvmlReturn_t NVML_SUCCESS = 0; nvmlClockType_t
// NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2; nvmlGpuP2PCapsIndex_t NVML_P2P_CAPS_INDEX_NVLINK = 2;
// nvmlGpuP2PStatus_t NVML_P2P_STATUS_OK = 0; a PCI bus id string is at most 32 bytes
// (NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE).
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlP2PCapsNvlink = 2;
constexpr int kNvmlP2PStatusOk = 0;
constexpr int kPciBusIdBytes = 32;

}  // namespace

double clock_change(const ClockReading& a, const ClockReading& b) {
  auto rel = [](int x, int y) {
    return (x > 0 && y > 0) ? std::fabs(static_cast<double>(y) - x) / static_cast<double>(x) : 0.0;
  };
  return std::max(rel(a.sm_mhz, b.sm_mhz), rel(a.mem_mhz, b.mem_mhz));
}

Nvml::Nvml() {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    note_ = "NVML unavailable (libnvidia-ml.so.1 not found): clocks and links not recorded";
    return;
  }
  using Init = int (*)();
  const auto init = reinterpret_cast<Init>(dlsym(library_, "nvmlInit_v2"));
  by_bus_id_ = reinterpret_cast<ByBusId>(dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
  get_clock_ = reinterpret_cast<GetClock>(dlsym(library_, "nvmlDeviceGetClockInfo"));
  p2p_status_ = reinterpret_cast<P2PStatus>(dlsym(library_, "nvmlDeviceGetP2PStatus"));
  const auto shutdown = reinterpret_cast<Shutdown>(dlsym(library_, "nvmlShutdown"));
  if (!init || !by_bus_id_ || !get_clock_ || !p2p_status_ || !shutdown) {
    note_ = "NVML lacks an entry point arlab uses: clocks and links not recorded";
    return;
  }
  if (init() != kNvmlSuccess) {
    note_ = "nvmlInit failed: clocks and links not recorded";
    return;
  }
  shutdown_ = shutdown;  // initialized: shut down in the destructor
  initialized_ = true;
}

Nvml::~Nvml() {
  if (shutdown_) shutdown_();
  if (library_) dlclose(library_);
}

void* Nvml::handle_for(int cuda_device) const {
  if (!initialized_) return nullptr;
  const auto it = handles_.find(cuda_device);
  if (it != handles_.end()) return it->second;
  void* dev = nullptr;
  char bus_id[kPciBusIdBytes] = {};
  if (cudaDeviceGetPCIBusId(bus_id, kPciBusIdBytes, cuda_device) == cudaSuccess) {
    if (by_bus_id_(bus_id, &dev) != kNvmlSuccess) dev = nullptr;
  } else {
    cudaGetLastError();  // not sticky; keep it out of later checks
  }
  handles_[cuda_device] = dev;
  return dev;
}

ClockReading Nvml::clocks(int cuda_device) const {
  ClockReading r;
  void* dev = handle_for(cuda_device);
  if (!dev) return r;
  unsigned int mhz = 0;
  if (get_clock_(dev, kNvmlClockSm, &mhz) == kNvmlSuccess) r.sm_mhz = static_cast<int>(mhz);
  if (get_clock_(dev, kNvmlClockMem, &mhz) == kNvmlSuccess) r.mem_mhz = static_cast<int>(mhz);
  return r;
}

std::string Nvml::link_between(int a, int b) const {
  if (a == b) return "local";
  void* da = handle_for(a);
  void* db = handle_for(b);
  int status = -1;
  if (da && db && p2p_status_(da, db, kNvmlP2PCapsNvlink, &status) == kNvmlSuccess && status == kNvmlP2PStatusOk)
    return "nvlink";
  int can_access = 0;
  if (cudaDeviceCanAccessPeer(&can_access, a, b) != cudaSuccess) {
    cudaGetLastError();
    return "unknown";
  }
  // Peer access without an NVLink path is PCIe P2P (when NVML answered at all).
  return can_access && da && db ? "pcie" : "unknown";
}

}  // namespace arlab::harness
