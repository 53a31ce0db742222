// Implementation of harness/cupti_timer.h, and the CUPTI branch of harness/check.h.
#include "harness/cupti_timer.h"

#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "harness/check.h"

namespace arlab {
namespace detail {
void check_cupti(int code, const char* call, const char* file, int line) {
  if (code == CUPTI_SUCCESS) return;
  const char* text = "?";
  cuptiGetResultString(static_cast<CUptiResult>(code), &text);
  throw_cuda_error("CUPTI", call, code, "CUptiResult", text ? text : "?", file, line, kNoRank);
}
}  // namespace detail

namespace harness {
namespace {

constexpr size_t kBufferBytes = 8u << 20;  // per CUPTI activity buffer (CUPTI's samples use 8 MB)
constexpr size_t kBufferAlign = 8;         // CUPTI requires 8-byte aligned buffers

// Completed activity buffers, handed from CUPTI's callbacks (no user pointer) to the timer.
struct CompletedBuffers {
  std::mutex mutex;
  std::vector<std::pair<uint8_t*, size_t>> buffers;  // (buffer, valid bytes)
  bool timer_alive = false;
};
CompletedBuffers& sink() {
  static CompletedBuffers s;
  return s;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(sink().mutex);
  sink().buffers.emplace_back(buffer, valid);
}

std::vector<std::pair<uint8_t*, size_t>> take_buffers() {
  std::lock_guard<std::mutex> lock(sink().mutex);
  return std::exchange(sink().buffers, {});
}

}  // namespace

CuptiKernelTimer::CuptiKernelTimer() {
  {
    std::lock_guard<std::mutex> lock(sink().mutex);
    if (sink().timer_alive) throw CudaError("a CuptiKernelTimer already exists in this process (CUPTI is process-wide)");
    sink().timer_alive = true;
  }
  try {
    ARLAB_CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    ARLAB_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    ARLAB_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
  } catch (...) {
    std::lock_guard<std::mutex> lock(sink().mutex);
    sink().timer_alive = false;
    throw;
  }
}

CuptiKernelTimer::~CuptiKernelTimer() {
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (auto& b : take_buffers()) std::free(b.first);
  std::lock_guard<std::mutex> lock(sink().mutex);
  sink().timer_alive = false;
}

void CuptiKernelTimer::push_id(uint64_t external_id) {
  ARLAB_CUPTI_CHECK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, external_id));
}

void CuptiKernelTimer::pop_id() {
  uint64_t last = 0;
  ARLAB_CUPTI_CHECK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last));
}

std::vector<KernelInterval> CuptiKernelTimer::collect() {
  ARLAB_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::unordered_map<uint32_t, uint64_t> external_of;  // CUPTI correlation id -> external id
  std::unordered_map<uint32_t, KernelInterval> kernel_of;
  for (auto& [buffer, valid] : take_buffers()) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        KernelInterval iv;
        iv.start_ns = k->start;
        iv.end_ns = k->end;
        iv.registers_per_thread = k->registersPerThread;
        kernel_of[k->correlationId] = iv;
      } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
        const auto* c = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        if (c->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) external_of[c->correlationId] = c->externalId;
      }
    }
    std::free(buffer);
  }
  std::vector<KernelInterval> out;
  for (auto& [corr, iv] : kernel_of) {
    const auto it = external_of.find(corr);
    if (it == external_of.end() || iv.start_ns == 0 || iv.end_ns < iv.start_ns) continue;
    iv.external_id = it->second;
    out.push_back(iv);
  }
  return out;
}

}  // namespace harness
}  // namespace arlab
