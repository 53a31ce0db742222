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

struct CuptiKernelTimer::State {
  CUpti_SubscriberHandle subscriber = nullptr;
  std::mutex mutex;
  bool tagging = false;
  uint64_t tag = 0;
  std::unordered_map<uint32_t, uint64_t> tag_of_correlation;  // launches made under a tag
  size_t last_kernel_records = 0, last_tagged_launches = 0;
};

namespace {

constexpr size_t kBufferBytes = 8u << 20;  // per CUPTI activity buffer (CUPTI's samples use 8 MB)
constexpr size_t kBufferAlign = 8;         // CUPTI requires 8-byte aligned buffers

// Completed activity buffers, handed from CUPTI's buffer callbacks (no user pointer) to the timer.
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

// Launch callback (runtime API: arlab's kernels; driver API: libraries that launch through the
// driver, as NCCL does): remember the correlation id of each launch made under a tag.
void CUPTIAPI on_runtime_api(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* cbdata) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(cbdata);
  if (info->callbackSite != CUPTI_API_EXIT) return;
  auto* st = static_cast<CuptiKernelTimer::State*>(userdata);
  std::lock_guard<std::mutex> lock(st->mutex);
  if (st->tagging) st->tag_of_correlation[info->correlationId] = st->tag;
}

}  // namespace

CuptiKernelTimer::CuptiKernelTimer() : state_(std::make_unique<State>()) {
  {
    std::lock_guard<std::mutex> lock(sink().mutex);
    if (sink().timer_alive)
      throw CudaError("a CuptiKernelTimer already exists in this process (CUPTI is process-wide)");
    sink().timer_alive = true;
  }
  try {
    ARLAB_CUPTI_CHECK(cuptiSubscribe(&state_->subscriber, on_runtime_api, state_.get()));
    ARLAB_CUPTI_CHECK(cuptiEnableCallback(1, state_->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                          CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060));
    ARLAB_CUPTI_CHECK(cuptiEnableCallback(1, state_->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                          CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060));
    for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz})
      ARLAB_CUPTI_CHECK(cuptiEnableCallback(1, state_->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id));
    ARLAB_CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    ARLAB_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  } catch (...) {
    if (state_->subscriber) cuptiUnsubscribe(state_->subscriber);
    std::lock_guard<std::mutex> lock(sink().mutex);
    sink().timer_alive = false;
    throw;
  }
}

CuptiKernelTimer::~CuptiKernelTimer() {
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (auto& b : take_buffers()) std::free(b.first);
  if (state_->subscriber) cuptiUnsubscribe(state_->subscriber);
  std::lock_guard<std::mutex> lock(sink().mutex);
  sink().timer_alive = false;
}

void CuptiKernelTimer::set_tag(uint64_t tag) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->tagging = true;
  state_->tag = tag;
}

void CuptiKernelTimer::clear_tag() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->tagging = false;
}

size_t CuptiKernelTimer::last_kernel_records() const { return state_->last_kernel_records; }
size_t CuptiKernelTimer::last_tagged_launches() const { return state_->last_tagged_launches; }

std::vector<KernelInterval> CuptiKernelTimer::collect() {
  ARLAB_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::unordered_map<uint32_t, uint64_t> tags;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    tags = std::exchange(state_->tag_of_correlation, {});
  }
  std::vector<KernelInterval> out;
  size_t kernels = 0;
  for (auto& [buffer, valid] : take_buffers()) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
      ++kernels;
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      const auto it = tags.find(k->correlationId);
      if (it == tags.end() || k->start == 0 || k->end < k->start) continue;
      KernelInterval iv;
      iv.tag = it->second;
      iv.start_ns = k->start;
      iv.end_ns = k->end;
      iv.registers_per_thread = k->registersPerThread;
      if (k->name) iv.name = k->name;  // copied: the record's buffer is freed below
      out.push_back(iv);
    }
    std::free(buffer);
  }
  state_->last_kernel_records = kernels;
  state_->last_tagged_launches = tags.size();
  return out;
}

}  // namespace harness
}  // namespace arlab
