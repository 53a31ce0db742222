// Implementation of harness/emulated_node.h.
#include "harness/emulated_node.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "harness/check.h"
#include "harness/fault_text.h"

namespace arlab::harness {
namespace {

constexpr double kNsPerMs = 1e6;
// The host gives the device this long beyond its own spin-wait bound before calling it a hang.
constexpr double kHostDeadlineSlackMs = 30000;
constexpr auto kHostPollInterval = std::chrono::microseconds(50);

}  // namespace

void request_device_connections() {
  constexpr int kNoOverwrite = 0;
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", kNoOverwrite);  // DESIGN §5: measured with 32
}

EmulatedNode::EmulatedNode(const NodeOptions& options) : options_(options) {
  if (!is_supported_nranks(options.nranks))
    throw InvalidArgument("nranks = " + std::to_string(options.nranks) + " is not supported (expected 2, 4, 8 or 16)");
  if (!(options.timeout_ms > 0))
    throw InvalidArgument("timeout = " + std::to_string(options.timeout_ms) + " ms must be > 0");
  request_device_connections();
  ARLAB_CUDA_CHECK(cudaSetDevice(options.device));
  ARLAB_CUDA_CHECK(cudaFree(nullptr));  // create the primary context before the green ones
  driver_ = DriverApi::load();
  device_ = query_device(options.device);
  const int sms = options.sms_per_rank > 0 ? options.sms_per_rank
                                           : model::sm_partition(device_.spec, options.nranks).sm_count;
  partitions_ = create_green_partitions(driver_, options.device, options.nranks, sms);
  rank_spec_ = model::sm_partition_with_count(device_.spec, partitions_[0].sm_count, options.nranks);
  const WorkspaceShape shape{options.max_tokens, options.max_hidden, options.nranks, options.max_elem_bytes};
  std::vector<void*> bases;
  for (int r = 0; r < options.nranks; ++r) {
    ranks_.push_back(std::make_unique<RankContext>(r, options.nranks, partitions_[static_cast<size_t>(r)].stream.get(),
                                                   rank_spec_, shape));
    bases.push_back(ranks_.back()->workspace().base());
    local_ranks_.push_back(r);
  }
  for (auto& r : ranks_) r->connect(bases);
}

EmulatedNode::~EmulatedNode() {
  // Let every rank finish before its workspace, streams and green contexts go away.
  cudaDeviceSynchronize();
}

std::string EmulatedNode::describe() const {
  return "emulated, " + std::to_string(nranks()) + " ranks x " + std::to_string(sms_per_rank()) +
         " SMs (green contexts) in one process on GPU " + std::to_string(options_.device);
}

unsigned long long EmulatedNode::timeout_ns() const {
  return static_cast<unsigned long long>(options_.timeout_ms * kNsPerMs);
}

void EmulatedNode::set_timeout_ms(double ms) {
  if (!(ms > 0)) throw InvalidArgument("timeout = " + std::to_string(ms) + " ms must be > 0");
  options_.timeout_ms = ms;
}

long long EmulatedNode::token_capacity(int hidden, DType dtype) const {
  return ranks_[0]->workspace().token_capacity(hidden, dtype);
}

void check_problem_fits(const Problem& p, int nranks, const NodeOptions& options, long long cap) {
  if (p.nranks != nranks)
    throw InvalidArgument("problem nranks = " + std::to_string(p.nranks) + " on a node of " +
                          std::to_string(nranks) + " ranks");
  if (dtype_bytes(p.dtype) > options.max_elem_bytes)
    throw InvalidArgument(std::string("dtype ") + to_string(p.dtype) + " needs a workspace of " +
                          std::to_string(dtype_bytes(p.dtype)) + "-byte elements; this one was sized for " +
                          std::to_string(options.max_elem_bytes));
  if (p.tokens > cap)
    throw InvalidArgument("tokens = " + std::to_string(p.tokens) + " exceeds the workspace capacity of " +
                          std::to_string(cap) + " tokens at H = " + std::to_string(p.hidden) + " " +
                          to_string(p.dtype) + " (workspace sized for " + std::to_string(options.max_tokens) +
                          " tokens x H " + std::to_string(options.max_hidden) + "; raise --max-tokens)");
}

void EmulatedNode::check_fits(const Problem& p) const {
  check_problem_fits(p, nranks(), options_, token_capacity(p.hidden, p.dtype));
}

void EmulatedNode::format(DType dtype) {
  if (formatted_ && format_ == dtype) return;
  format_ = dtype;
  formatted_ = true;
  reinitialize();
}

void EmulatedNode::reinitialize() {
  ARLAB_CUDA_CHECK(cudaDeviceSynchronize());
  for (auto& r : ranks_) r->workspace().initialize(format_, r->stream());
  for (auto& r : ranks_) ARLAB_CUDA_CHECK_RANK(r->rank(), cudaStreamSynchronize(r->stream()));
}

void EmulatedNode::synchronize() {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long long>(options_.timeout_ms + kHostDeadlineSlackMs));
  for (auto& r : ranks_) {
    for (;;) {
      const cudaError_t e = cudaStreamQuery(r->stream());
      if (e == cudaSuccess) break;
      if (e != cudaErrorNotReady) ARLAB_CUDA_CHECK_RANK(r->rank(), e);
      if (std::chrono::steady_clock::now() > deadline) {
        // Every device wait is bounded, so this is a bug or a broken GPU. Nothing can be freed or
        // synchronized any more (each such call would wait forever): say why and stop the process.
        std::fprintf(stderr,
                     "arlab: fatal: rank %d did not finish within %.0f s although every device wait is bounded by "
                     "%.0f ms: the GPU is hung; aborting\n",
                     r->rank(), (options_.timeout_ms + kHostDeadlineSlackMs) / 1000, options_.timeout_ms);
        std::fflush(stderr);
        std::abort();
      }
      std::this_thread::sleep_for(kHostPollInterval);
    }
  }
  for (auto& r : ranks_) {
    const unsigned long long w = r->read_fault_word();
    if (w == 0) continue;
    const kernels::FaultInfo f = kernels::decode_fault(w);
    reinitialize();
    throw DeviceTimeout(describe_fault(f, options_.timeout_ms, nranks()) +
                        "; the Lamport workspaces of all ranks were re-initialized",
                        f);
  }
}

}  // namespace arlab::harness
