// arlab_timer_probe: what resolution do the GPU clocks that arlab times with actually have?
//
// Measurement issue (docs/measurement.md, "Resolution"): every kernel time arlab reported came in 0.25 us
// steps. This probe separates the candidate causes on one GPU, in one process, printing one line
// per finding:
//   1. %globaltimer, read by one thread in a tight loop: the increments between successive distinct
//      values (the tick of the GPU's global timer as a kernel sees it), before CUPTI is enabled,
//      while CUPTI activity tracing is on, and after it is switched off again;
//   2. CUPTI kernel records (start, end) of a spin kernel whose length is swept in steps of a few
//      SM cycles: the greatest common divisor of all timestamps relative to the first, and how many
//      distinct (end - start) values the sweep produced (a fine clock gives one per length);
//   3. the same for CUDA events (cudaEventElapsedTime), for comparison.
// Nothing here changes clocks or device settings.
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "kernels/device_sync.cuh"

namespace {

#define PROBE_CUDA(call)                                                                        \
  do {                                                                                          \
    const cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)
#define PROBE_CUPTI(call)                                                          \
  do {                                                                             \
    const CUptiResult r_ = (call);                                                 \
    if (r_ != CUPTI_SUCCESS) {                                                     \
      const char* s_ = "?";                                                        \
      cuptiGetResultString(r_, &s_);                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_);      \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

constexpr int kTicks = 256;                 // distinct %globaltimer values recorded per probe
constexpr unsigned long long kTickBudgetNs = 20'000'000ull;  // stop the tick probe after 20 ms

__device__ __forceinline__ unsigned long long globaltimer() { return arlab::kernels::global_timer_ns(); }

__global__ void tick_probe(unsigned long long* deltas, int n) {
  unsigned long long prev = globaltimer();
  const unsigned long long start = prev;
  int k = 0;
  while (k < n) {
    const unsigned long long t = globaltimer();
    if (t != prev) {
      deltas[k++] = t - prev;
      prev = t;
    }
    if (t - start > kTickBudgetNs) break;
  }
  for (; k < n; ++k) deltas[k] = 0;
}

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

void print_ticks(const char* when) {
  unsigned long long* d = nullptr;
  PROBE_CUDA(cudaMalloc(&d, kTicks * sizeof(unsigned long long)));
  tick_probe<<<1, 1>>>(d, kTicks);
  PROBE_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned long long> h(kTicks);
  PROBE_CUDA(cudaMemcpy(h.data(), d, kTicks * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  PROBE_CUDA(cudaFree(d));
  std::map<unsigned long long, int> hist;
  for (auto v : h)
    if (v) ++hist[v];
  std::printf("globaltimer %-26s increments (ns x count):", when);
  int shown = 0;
  for (auto& [v, c] : hist) {
    if (++shown > 8) break;
    std::printf(" %llux%d", v, c);
  }
  std::printf("%s\n", hist.size() > 8 ? " ..." : "");
}

// CUPTI plumbing: buffers in, kernel records out.
std::mutex g_mutex;                                    // the probe is a one-file program
std::vector<std::pair<uint8_t*, size_t>> g_buffers;    // completed activity buffers

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  constexpr size_t kBytes = 8u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBytes));
  *size = kBytes;
  *max_records = 0;
}
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_buffers.emplace_back(buffer, valid);
}

struct Interval {
  uint64_t start, end;
};
std::vector<Interval> collect_kernel_records() {
  PROBE_CUPTI(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::vector<Interval> out;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& [buf, valid] : g_buffers) {
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
      if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
      out.push_back({k->start, k->end});
    }
    std::free(buf);
  }
  g_buffers.clear();
  std::sort(out.begin(), out.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  return out;
}

void report_intervals(const char* what, const std::vector<Interval>& iv) {
  if (iv.empty()) {
    std::printf("%s: no records\n", what);
    return;
  }
  uint64_t g = 0;
  std::set<uint64_t> durations;
  for (const Interval& k : iv) {
    g = std::gcd(g, k.start - iv.front().start);
    g = std::gcd(g, k.end - iv.front().start);
    durations.insert(k.end - k.start);
  }
  std::printf("%s: %zu kernels, gcd of timestamps %llu ns, %zu distinct durations (min %llu max %llu ns)\n", what,
              iv.size(), static_cast<unsigned long long>(g), durations.size(),
              static_cast<unsigned long long>(*durations.begin()),
              static_cast<unsigned long long>(*durations.rbegin()));
}

// The sweep: kernels whose length grows by `step` SM cycles (~a few ns) per launch.
constexpr int kSweep = 200;
constexpr long long kBaseCycles = 4000;  // ~2 us at 1.98 GHz
constexpr long long kStepCycles = 7;

void sweep_with_cupti(CUpti_ActivityKind kind, const char* label) {
  PROBE_CUPTI(cuptiActivityEnable(kind));
  print_ticks((std::string("(CUPTI ") + label + " on)").c_str());
  for (int i = 0; i < kSweep; ++i) spin_kernel<<<1, 32>>>(kBaseCycles + kStepCycles * i);
  PROBE_CUDA(cudaDeviceSynchronize());
  report_intervals((std::string("CUPTI ") + label).c_str(), collect_kernel_records());
  PROBE_CUPTI(cuptiActivityDisable(kind));
}

void sweep_with_events() {
  std::vector<cudaEvent_t> ev(2 * kSweep);
  for (auto& e : ev) PROBE_CUDA(cudaEventCreate(&e));
  for (int i = 0; i < kSweep; ++i) {
    PROBE_CUDA(cudaEventRecord(ev[2 * i]));
    spin_kernel<<<1, 32>>>(kBaseCycles + kStepCycles * i);
    PROBE_CUDA(cudaEventRecord(ev[2 * i + 1]));
  }
  PROBE_CUDA(cudaDeviceSynchronize());
  std::set<float> durations;
  for (int i = 0; i < kSweep; ++i) {
    float ms = 0;
    PROBE_CUDA(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
    durations.insert(ms);
  }
  std::printf("CUDA events: %d kernels, %zu distinct durations (min %.4f max %.4f us)\n", kSweep, durations.size(),
              *durations.begin() * 1e3, *durations.rbegin() * 1e3);
  for (auto& e : ev) cudaEventDestroy(e);
}

}  // namespace

int main() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    std::fprintf(stderr, "arlab_timer_probe: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop{};
  PROBE_CUDA(cudaGetDeviceProperties(&prop, dev));
  std::printf("arlab_timer_probe on %s\n", prop.name);
  spin_kernel<<<1, 32>>>(1000);  // context and module load
  PROBE_CUDA(cudaDeviceSynchronize());
  print_ticks("(no CUPTI)");
  sweep_with_events();
  PROBE_CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  sweep_with_cupti(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "concurrent-kernel");
  print_ticks("(CUPTI off again)");
  sweep_with_cupti(CUPTI_ACTIVITY_KIND_KERNEL, "serial-kernel");
  print_ticks("(CUPTI off at end)");
  return 0;
}
