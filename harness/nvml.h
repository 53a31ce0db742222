// What arlab reads through NVML: the SM and memory clocks of a GPU (docs/measurement.md: recorded at the
// start and end of every measurement; never changed) and the link between two GPUs (NVLink or
// PCIe; docs/measurement.md: record the link actually used). NVML is opened at run time (dlopen of the
// driver's libnvidia-ml.so.1), so arlab starts on machines without a driver and builds without an
// NVML header: the few entry points used are declared in nvml.cpp from NVML's documented, stable
// C ABI. When NVML is missing, clocks read -1, links read "unknown", and note() says why.
#pragma once

#include <map>
#include <string>

namespace arlab::harness {

struct ClockReading {
  int sm_mhz = -1;   // -1: not available
  int mem_mhz = -1;
};

// Relative change of the SM or memory clock from `a` to `b`, whichever is larger (0 when either
// reading is unavailable).
double clock_change(const ClockReading& a, const ClockReading& b);

class Nvml {
 public:
  Nvml();  // never throws
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const { return initialized_; }
  const std::string& note() const { return note_; }

  ClockReading clocks(int cuda_device) const;
  // "nvlink" when NVML reports an NVLink P2P path between the two GPUs, "pcie" when CUDA reports
  // peer access without one, "unknown" when neither can be established.
  std::string link_between(int cuda_device_a, int cuda_device_b) const;

 private:
  void* handle_for(int cuda_device) const;  // nvmlDevice_t, nullptr when unavailable

  void* library_ = nullptr;
  bool initialized_ = false;
  std::string note_;
  using GetClock = int (*)(void*, int, unsigned int*);
  using ByBusId = int (*)(const char*, void**);
  using P2PStatus = int (*)(void*, void*, int, int*);
  using Shutdown = int (*)();
  GetClock get_clock_ = nullptr;
  ByBusId by_bus_id_ = nullptr;
  P2PStatus p2p_status_ = nullptr;
  Shutdown shutdown_ = nullptr;
  mutable std::map<int, void*> handles_;  // CUDA ordinal -> nvmlDevice_t
};

// The clocks of one CUDA device, as the timing loop reads them.
class GpuClocks {
 public:
  GpuClocks(const Nvml& nvml, int cuda_device) : nvml_(nvml), device_(cuda_device) {}
  ClockReading read() const { return nvml_.clocks(device_); }

 private:
  const Nvml& nvml_;
  int device_;
};

}  // namespace arlab::harness
