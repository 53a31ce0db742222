// Implementation of harness/fused_runner.h.
#include "harness/fused_runner.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "harness/check.h"
#include "harness/cupti_timer.h"
#include "harness/nccl_comm.h"
#include "model/policies.h"

namespace arlab::harness {

int input_sets_for(const Problem& p, long long l2_bytes) {
  const long long per_rank = static_cast<long long>(p.tokens) * p.hidden * dtype_bytes(p.dtype) *
                             (has_residual(p.pattern) ? 2 : 1);
  const long long per_set = per_rank * p.nranks;
  if (per_set <= 0) return 1;
  const long long want = (2 * l2_bytes + per_set - 1) / per_set;  // sets covering 2x L2
  return static_cast<int>(std::clamp<long long>(want, 1, kMaxInputSets));
}

FusedRunner::FusedRunner(Node& node, const Problem& shape, int nsets, uint64_t seed, ref::Distribution dist)
    : node_(node), shape_(shape) {
  validate(shape);
  if (nsets < 1 || nsets > kMaxInputSets)
    throw InvalidArgument("input sets = " + std::to_string(nsets) + " outside [1, " + std::to_string(kMaxInputSets) +
                          "]");
  for (int s = 0; s < nsets; ++s) inputs_.push_back(ref::make_inputs(shape, seed + static_cast<uint64_t>(s), dist));
  setup();
}

FusedRunner::FusedRunner(Node& node, const Problem& shape, std::vector<ref::FusedInputs> input_sets)
    : node_(node), shape_(shape), inputs_(std::move(input_sets)) {
  validate(shape);
  if (inputs_.empty() || static_cast<int>(inputs_.size()) > kMaxInputSets)
    throw InvalidArgument("input sets = " + std::to_string(inputs_.size()) + " outside [1, " +
                          std::to_string(kMaxInputSets) + "]");
  for (const auto& in : inputs_) ref::check_inputs(shape, in);
  setup();
}

void FusedRunner::setup() {
  // gamma is a weight of the problem, not an input: the device holds one gamma per rank
  // (RankTensors) for all input sets, so the reference of every set must use that same gamma.
  for (auto& in : inputs_) in.gamma = inputs_.front().gamma;
  node_.check_fits(shape_);
  kernel_ = kernels::find_fused_kernel(kernels::kernel_key(shape_));
  cudaFuncAttributes attr{};
  ARLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel_.fn));
  regs_ = attr.numRegs;
  static_smem_ = static_cast<int>(attr.sharedSizeBytes);
  if (shape_.algo == Algorithm::oneshot) {
    lean_kernel_ = kernels::find_fused_kernel(kernels::kernel_key(shape_, KernelVariant::lean));
    cudaFuncAttributes lean_attr{};
    ARLAB_CUDA_CHECK(cudaFuncGetAttributes(&lean_attr, lean_kernel_.fn));
    lean_regs_ = lean_attr.numRegs;
    lean_static_smem_ = static_cast<int>(lean_attr.sharedSizeBytes);
  }
  Problem ar_shape = shape_;
  ar_shape.pattern = Pattern::ar;
  ar_kernel_ = kernels::find_fused_kernel(kernels::kernel_key(ar_shape));
  cudaFuncAttributes ar_attr{};
  ARLAB_CUDA_CHECK(cudaFuncGetAttributes(&ar_attr, ar_kernel_.fn));
  ar_regs_ = ar_attr.numRegs;
  ar_static_smem_ = static_cast<int>(ar_attr.sharedSizeBytes);
  if (has_residual(shape_.pattern)) norm_kernel_ = kernels::find_norm_kernel(shape_.dtype, shape_.pattern);
  node_.format(shape_.dtype);
  tensors_.resize(static_cast<size_t>(node_.nranks()));  // only the local ranks' entries are used
  for (int r : node_.local_ranks()) {
    auto& t = tensors_[static_cast<size_t>(r)];
    t = std::make_unique<RankTensors>(shape_, nsets(), r);
    for (int s = 0; s < nsets(); ++s)
      t->upload(inputs_[static_cast<size_t>(s)], s, shape_.scale, node_.rank(r).stream());
  }
  preload_norm_kernel();
}

// Under lazy module loading (the default since CUDA 12.2) the first launch of a kernel in a context
// loads it there and may wait for the work already running in that context (CUDA C++ Programming
// Guide, Lazy Loading; calibrate/cross_rank_kernels.h tells the deadlock this makes). A baseline
// launches the norm kernel right behind its all-reduce, which spins until the other ranks push:
// were the norm kernel loaded then, the host would wait for that spin while the other ranks' launches
// wait for the host. So every rank's context gets it now, by a launch of zero tokens (no work, no
// wait), before any call. The all-reduce kernels are loaded by the first call, where nothing of
// their own context runs before them (measure_group makes that call before any timed batch).
void FusedRunner::preload_norm_kernel() {
  if (!has_residual(shape_.pattern)) return;
  Problem none = shape_;
  none.tokens = 0;
  const LaunchConfig cfg = norm_config(shape_);
  for (int r : node_.local_ranks()) {
    RankContext& rank = node_.rank(r);
    kernels::FusedParams p = rank.fused_params(none, cfg, *tensors_[static_cast<size_t>(r)], 0, node_.timeout_ns());
    p.tokens = 0;
    ARLAB_CUDA_CHECK_RANK(r, kernels::launch_norm(norm_kernel_, p, cfg, rank.stream()));
    ARLAB_CUDA_CHECK_RANK(r, cudaStreamSynchronize(rank.stream()));
  }
}

// True for a call that runs the lean one-shot body; validate_call refuses the variant elsewhere.
static bool runs_lean(const LaunchConfig& cfg) {
  return cfg.impl == Implementation::fused && cfg.variant == KernelVariant::lean;
}

const kernels::FusedKernel& FusedRunner::kernel_for(const LaunchConfig& cfg) const {
  if (cfg.impl == Implementation::unfused) return ar_kernel_;
  if (!runs_lean(cfg)) return kernel_;
  if (lean_kernel_.fn == nullptr)
    throw InvalidArgument(std::string("the lean kernel is one-shot only: this runner's problem is ") +
                          to_string(shape_.algo) + " (" + kernel_.name + "); use --kernel reference");
  return lean_kernel_;
}

model::KernelResources FusedRunner::resources(const LaunchConfig& cfg) const {
  model::KernelResources res;
  if (cfg.impl == Implementation::nccl) return res;
  const kernels::FusedKernel& k = kernel_for(cfg);
  const int regs = cfg.impl == Implementation::unfused ? ar_regs_ : runs_lean(cfg) ? lean_regs_ : regs_;
  const int static_smem =
      cfg.impl == Implementation::unfused ? ar_static_smem_ : runs_lean(cfg) ? lean_static_smem_ : static_smem_;
  res.regs_per_thread = regs;
  res.smem_per_block_bytes = static_smem + static_cast<int>(kernels::fused_dynamic_smem_bytes(k.key, cfg));
  return res;
}

void FusedRunner::validate_call(const Problem& call, const LaunchConfig& cfg) const {
  validate(call);
  if (!same_except_tokens(call, shape_))
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
  if (cfg.variant != KernelVariant::reference && cfg.impl != Implementation::fused)
    throw InvalidArgument(std::string("kernel variant ") + to_string(cfg.variant) + " with the " +
                          to_string(cfg.impl) + " baseline: baselines run the reference kernels only");
  if (cfg.variant != KernelVariant::reference && call.algo != Algorithm::oneshot)
    throw InvalidArgument(std::string("the ") + to_string(cfg.variant) + " kernel is one-shot only; this call is " +
                          to_string(call.algo) + " (two-shot runs the reference kernel)");
  switch (cfg.impl) {
    case Implementation::fused: model::check_legal(call, cfg, node_.rank_spec(), resources(cfg)); break;
    case Implementation::unfused: {
      Problem ar_call = call;
      ar_call.pattern = Pattern::ar;
      model::check_legal(ar_call, cfg, node_.rank_spec(), resources(cfg));
      break;
    }
    case Implementation::nccl:
      if (call.nranks != 2)
        throw InvalidArgument("the nccl baseline is gated at N = 2 only (NCCL sums in ring order, not in rank order "
                              "0..N-1, so its sum is not the reference's bit for bit); N = " +
                              std::to_string(call.nranks));
      node_.nccl();  // throws where NCCL cannot run; makes the communicator on first use (collective)
      break;
  }
}

int FusedRunner::kernels_per_call(const LaunchConfig& cfg) const {
  return cfg.impl != Implementation::fused && has_residual(shape_.pattern) ? 2 : 1;
}

LaunchConfig FusedRunner::norm_config(const Problem& call) const {
  return model::separate_norm_config(call, node_.rank_spec());
}

void FusedRunner::enqueue_rank(int r, const Problem& call, const LaunchConfig& cfg, int set, bool gate,
                               CuptiKernelTimer* timer, uint64_t tag) {
  if (set < 0 || set >= nsets())
    throw InvalidArgument("input set " + std::to_string(set) + " outside [0, " + std::to_string(nsets()) + ")");
  const unsigned long long timeout = node_.timeout_ns();
  RankContext& rank = node_.rank(r);
  const kernels::FusedParams params = rank.fused_params(call, cfg, *tensors_.at(static_cast<size_t>(r)), set, timeout);
  const bool faulty = calls_enqueued_[static_cast<size_t>(r)]++ >= fault_.from_call;
  if (faulty && r == fault_.cuda_error_rank)
    throw CudaError("rank " + std::to_string(r) + ": injected CUDA error (--inject-fault cuda-error-rank=" +
                    std::to_string(r) + "), raised before this rank launched its kernel");
  if (gate) rank.launch_gate(timeout);
  if (timer) timer->set_tag(tag);
  const bool skip = faulty && r == fault_.skip_kernel_rank;  // skipped: --inject-fault
  const RankTensors& t = *tensors_.at(static_cast<size_t>(r));
  switch (cfg.impl) {
    case Implementation::fused:
      if (!skip) rank.launch_fused(kernel_for(cfg), params, cfg);
      break;
    case Implementation::unfused: {
      kernels::FusedParams ar = params;
      ar.allreduce_out = t.baseline_sum();
      if (!skip) rank.launch_fused(ar_kernel_, ar, cfg);
      break;
    }
    case Implementation::nccl: {
      const size_t count = static_cast<size_t>(call.tokens) * static_cast<size_t>(call.hidden);
      if (!skip) node_.nccl().all_reduce_sum(params.x, t.baseline_sum(), count, call.dtype, rank.stream());
      break;
    }
  }
  if (kernels_per_call(cfg) == 2) {
    // The separate norm kernel reads the sum the all-reduce step left in baseline_sum().
    kernels::FusedParams norm = params;
    norm.x = t.baseline_sum();
    const LaunchConfig ncfg = norm_config(call);
    norm.cluster = ncfg.cluster;
    norm.vecs_per_thread = ncfg.vecs_per_thread;
    if (timer) timer->set_tag(tag | kSecondKernelTagBit);
    ARLAB_CUDA_CHECK_RANK(r, kernels::launch_norm(norm_kernel_, norm, ncfg, rank.stream()));
  }
  if (timer) timer->clear_tag();
}

void FusedRunner::enqueue(const Problem& call, const LaunchConfig& cfg, int set, bool gate, CuptiKernelTimer* timer,
                          uint64_t tag_base) {
  for (int r : node_.local_ranks()) enqueue_rank(r, call, cfg, set, gate, timer, tag_base + static_cast<uint64_t>(r));
}

void FusedRunner::poison(const Problem& call) {
  for (int r : node_.local_ranks()) tensors_[static_cast<size_t>(r)]->poison_outputs(call, node_.rank(r).stream());
}

std::vector<ref::FusedOutputs> FusedRunner::download(const Problem& call) {
  std::vector<ref::FusedOutputs> out;
  for (int r : node_.local_ranks())
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
  ref::GateReport report = ref::check_outputs(call, e.outputs, per_rank, &e.exact, node_.local_ranks());
  if (static_cast<int>(node_.local_ranks().size()) != node_.nranks())
    combine_gate_across_processes(node_, per_rank, report);
  return report;
}

uint64_t output_digest(const ref::FusedOutputs& o) {
  constexpr uint64_t kFnvOffset = 1469598103934665603ull;  // FNV-1a 64-bit offset basis
  constexpr uint64_t kFnvPrime = 1099511628211ull;         // FNV-1a 64-bit prime
  uint64_t h = kFnvOffset;
  for (const std::vector<uint8_t>* bytes : {&o.allreduce_out.bytes, &o.residual_out.bytes, &o.norm_out.bytes,
                                            &o.quant_out, &o.scale_out}) {
    for (uint8_t b : *bytes) h = (h ^ b) * kFnvPrime;
    h = (h ^ 0xFFu) * kFnvPrime;  // separator: outputs of different lengths never collide trivially
  }
  return h;
}

void combine_gate_across_processes(const Node& node, const std::vector<ref::FusedOutputs>& local_outputs,
                                   ref::GateReport& report) {
  // Every process's verdict and tallies, folded into mine (which keeps my failure text and figures).
  const std::vector<uint64_t> all = node.allgather_u64(report.to_words());
  ref::GateReport c = report;
  for (size_t p = 0; (p + 1) * ref::GateReport::kWords <= all.size(); ++p) {
    if (static_cast<int>(p) == node.process_index()) continue;
    ref::GateReport theirs = ref::GateReport::from_words(&all[p * ref::GateReport::kWords]);
    if (!theirs.pass) theirs.first_failure = "process " + std::to_string(p) + " failed its check (see its output)";
    c.merge(theirs);
  }
  // Bit-identical outputs on every rank: compare every rank's digest with the first one.
  std::vector<uint64_t> digests;
  for (const ref::FusedOutputs& o : local_outputs) digests.push_back(output_digest(o));
  const std::vector<uint64_t> all_digests = node.allgather_u64(digests);
  for (size_t i = 1; i < all_digests.size(); ++i) {
    if (all_digests[i] != all_digests[0]) {
      ++c.cross_rank_mismatches;
      if (c.pass) {
        c.pass = false;
        c.first_failure = "outputs of rank " + std::to_string(i) + " differ from rank 0's (64-bit digest " +
                          std::to_string(all_digests[i]) + " vs " + std::to_string(all_digests[0]) + ")";
      }
    }
  }
  report = c;
}

ref::GateReport FusedRunner::check(const Problem& call, const LaunchConfig& cfg) {
  validate_call(call, cfg);
  poison(call);
  enqueue(call, cfg, 0, /*gate=*/false);
  node_.synchronize();
  return judge(call, 0, download(call));
}

}  // namespace arlab::harness
