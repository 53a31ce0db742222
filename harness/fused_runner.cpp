// Implementation of harness/fused_runner.h.
#include "harness/fused_runner.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "harness/check.h"
#include "harness/cupti_timer.h"

namespace arlab::harness {

int input_sets_for(const Problem& p, long long l2_bytes) {
  const long long per_rank = static_cast<long long>(p.tokens) * p.hidden * dtype_bytes(p.dtype) *
                             (has_residual(p.pattern) ? 2 : 1);
  const long long per_set = per_rank * p.nranks;
  if (per_set <= 0) return 1;
  const long long want = (2 * l2_bytes + per_set - 1) / per_set;  // sets covering 2x L2
  return static_cast<int>(std::clamp<long long>(want, 1, kMaxInputSets));
}

FusedRunner::FusedRunner(EmulatedNode& node, const Problem& shape, int nsets, uint64_t seed, ref::Distribution dist)
    : node_(node), shape_(shape) {
  validate(shape);
  if (nsets < 1 || nsets > kMaxInputSets)
    throw InvalidArgument("input sets = " + std::to_string(nsets) + " outside [1, " + std::to_string(kMaxInputSets) + "]");
  for (int s = 0; s < nsets; ++s) inputs_.push_back(ref::make_inputs(shape, seed + static_cast<uint64_t>(s), dist));
  setup();
}

FusedRunner::FusedRunner(EmulatedNode& node, const Problem& shape, std::vector<ref::FusedInputs> input_sets)
    : node_(node), shape_(shape), inputs_(std::move(input_sets)) {
  validate(shape);
  if (inputs_.empty() || static_cast<int>(inputs_.size()) > kMaxInputSets)
    throw InvalidArgument("input sets = " + std::to_string(inputs_.size()) + " outside [1, " +
                          std::to_string(kMaxInputSets) + "]");
  for (const auto& in : inputs_) ref::check_inputs(shape, in);
  setup();
}

void FusedRunner::setup() {
  node_.check_fits(shape_);
  kernel_ = kernels::find_fused_kernel(kernels::kernel_key(shape_));
  cudaFuncAttributes attr{};
  ARLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel_.fn));
  regs_ = attr.numRegs;
  static_smem_ = static_cast<int>(attr.sharedSizeBytes);
  node_.format(shape_.dtype);
  for (int r = 0; r < node_.nranks(); ++r) {
    tensors_.push_back(std::make_unique<RankTensors>(shape_, nsets(), r));
    for (int s = 0; s < nsets(); ++s)
      tensors_.back()->upload(inputs_[static_cast<size_t>(s)], s, shape_.scale, node_.rank(r).stream());
  }
}

model::KernelResources FusedRunner::resources(const LaunchConfig& cfg) const {
  model::KernelResources res;
  res.regs_per_thread = regs_;
  res.smem_per_block_bytes = static_smem_ + static_cast<int>(kernels::fused_dynamic_smem_bytes(kernel_.key, cfg));
  return res;
}

void FusedRunner::validate_call(const Problem& call, const LaunchConfig& cfg) const {
  validate(call);
  Problem same = call;
  same.tokens = shape_.tokens;
  if (same.hidden != shape_.hidden || same.dtype != shape_.dtype || same.nranks != shape_.nranks ||
      same.pattern != shape_.pattern || same.acc != shape_.acc || same.algo != shape_.algo ||
      same.sf_layout != shape_.sf_layout || same.eps != shape_.eps || same.scale != shape_.scale)
    throw InvalidArgument("call differs from the runner's problem in more than tokens (runner: H " +
                          std::to_string(shape_.hidden) + " " + to_string(shape_.dtype) + " N " +
                          std::to_string(shape_.nranks) + " " + to_string(shape_.pattern) + ")");
  if (call.tokens > shape_.tokens)
    throw InvalidArgument("tokens = " + std::to_string(call.tokens) + " exceeds the " + std::to_string(shape_.tokens) +
                          " tokens the runner's tensors hold");
  node_.check_fits(call);
  if (cfg.algo != call.algo)
    throw InvalidArgument(std::string("launch configuration is for ") + to_string(cfg.algo) + ", the problem is " +
                          to_string(call.algo));
  model::check_legal(call, cfg, node_.rank_spec(), resources(cfg));
}

void FusedRunner::enqueue_rank(int r, const Problem& call, const LaunchConfig& cfg, int set, bool gate,
                               CuptiKernelTimer* timer, uint64_t tag) {
  if (set < 0 || set >= nsets())
    throw InvalidArgument("input set " + std::to_string(set) + " outside [0, " + std::to_string(nsets()) + ")");
  const unsigned long long timeout = node_.timeout_ns();
  RankContext& rank = node_.rank(r);
  const kernels::FusedParams params = rank.fused_params(call, cfg, *tensors_.at(static_cast<size_t>(r)), set, timeout);
  if (gate) rank.launch_gate(timeout);
  if (timer) timer->push_id(tag);
  rank.launch_fused(kernel_, params, cfg);
  if (timer) timer->pop_id();
}

void FusedRunner::enqueue(const Problem& call, const LaunchConfig& cfg, int set, bool gate, CuptiKernelTimer* timer,
                          uint64_t tag_base) {
  for (int r = 0; r < node_.nranks(); ++r) enqueue_rank(r, call, cfg, set, gate, timer, tag_base + static_cast<uint64_t>(r));
}

void FusedRunner::poison(const Problem& call) {
  for (int r = 0; r < node_.nranks(); ++r) tensors_[static_cast<size_t>(r)]->poison_outputs(call, node_.rank(r).stream());
}

std::vector<ref::FusedOutputs> FusedRunner::download(const Problem& call) {
  std::vector<ref::FusedOutputs> out;
  for (int r = 0; r < node_.nranks(); ++r)
    out.push_back(tensors_[static_cast<size_t>(r)]->download_outputs(call, node_.rank(r).stream()));
  return out;
}

const FusedRunner::Expected& FusedRunner::expected(const Problem& call, int set) {
  const auto key = std::make_pair(call.tokens, set);
  auto it = expected_.find(key);
  if (it == expected_.end()) {
    const ref::FusedInputs in = first_tokens(inputs_.at(static_cast<size_t>(set)), call.tokens);
    Expected e{ref::reference_fused(call, in), ref::exact_fused(call, in)};
    it = expected_.emplace(key, std::move(e)).first;
  }
  return it->second;
}

ref::GateReport FusedRunner::judge(const Problem& call, int set, const std::vector<ref::FusedOutputs>& per_rank) {
  const Expected& e = expected(call, set);
  return ref::check_outputs(call, e.outputs, per_rank, &e.exact);
}

ref::GateReport FusedRunner::check(const Problem& call, const LaunchConfig& cfg) {
  validate_call(call, cfg);
  poison(call);
  enqueue(call, cfg, 0, /*gate=*/false);
  node_.synchronize();
  return judge(call, 0, download(call));
}

}  // namespace arlab::harness
