// Implementation of harness/fused_runner.h.
#include "harness/fused_runner.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "harness/check.h"
#include "harness/cupti_timer.h"
#include "harness/nccl_comm.h"
#include "peers/peer_kernels.h"
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

RunnerKernel FusedRunner::load_kernel(const kernels::KernelKey& key) const {
  RunnerKernel k;
  k.kernel = kernels::find_fused_kernel(key);
  cudaFuncAttributes attr{};
  ARLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, k.kernel.fn));
  k.regs = attr.numRegs;
  k.static_smem = static_cast<int>(attr.sharedSizeBytes);
  return k;
}

void FusedRunner::setup() {
  // gamma is a weight of the problem, not an input: the device holds one gamma per rank
  // (RankTensors) for all input sets, so the reference of every set must use that same gamma.
  for (auto& in : inputs_) in.gamma = inputs_.front().gamma;
  node_.check_fits(shape_);
  // Every kernel body of the table with each algorithm it has; the unfused baseline's all-reduce.
  for (Impl body : arlab_bodies())
    for (Algorithm algo : algorithms_of(body)) {
      Problem p = shape_;
      p.algo = algo;
      kernels_[{body, algo}] = load_kernel(kernels::kernel_key(p, body));
    }
  for (Algorithm algo : algorithms_of(Impl::unfused)) {
    Problem ar = shape_;
    ar.algo = algo;
    ar.pattern = Pattern::ar;
    kernels_[{Impl::unfused, algo}] = load_kernel(kernels::kernel_key(ar, Impl::reference));
  }
  if (has_residual(shape_.pattern)) norm_kernel_ = kernels::find_norm_kernel(shape_.dtype, shape_.pattern);
  setup_peers();
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

// The peers' kernels and calls, where the build has them and the node's workspaces hold their part;
// else the reason, which prepare() gives when a peer row is asked for.
void FusedRunner::setup_peers() {
  const int local = node_.local_ranks().front();
  if (!peers::built()) {
    peers_reason_ = peers::not_built_reason();
    return;
  }
  if (!node_.rank(local).workspace().shape().peers) {
    peers_reason_ = "the node was opened without the peers' workspace part (a run opens it when a peer "
                    "implementation is in its plan)";
    return;
  }
  peers_ = std::make_unique<PeerCalls>(node_);
  for (Algorithm algo : algorithms_of(Impl::flashinfer)) {
    Problem p = shape_;
    p.algo = algo;
    if (!implementation_refusal(Impl::flashinfer, p, true, node_.rank_spec().cc_major).empty()) continue;
    RunnerKernel k;
    k.kernel.fn = peers::flashinfer_kernel(p, algo);
    k.kernel.key = kernels::kernel_key(p, Impl::flashinfer);
    k.kernel.name = std::string("flashinfer-") + flashinfer_version() + " " + kernels::kernel_name(k.kernel.key);
    cudaFuncAttributes attr{};
    ARLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, k.kernel.fn));
    k.regs = attr.numRegs;
    k.static_smem = static_cast<int>(attr.sharedSizeBytes);
    kernels_[{Impl::flashinfer, algo}] = k;
  }
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

const RunnerKernel& FusedRunner::kernel_for(const LaunchConfig& cfg) const {
  const auto it = kernels_.find({cfg.impl, cfg.algo});
  if (it != kernels_.end()) return it->second;
  Problem p = shape_;
  p.algo = cfg.algo;
  const std::string refusal = implementation_refusal(cfg.impl, p, true, node_.rank_spec().cc_major);
  if (!refusal.empty()) throw InvalidArgument(refusal);
  if (is_peer(cfg.impl) && !peers_) throw InvalidArgument(std::string("the ") + to_string(cfg.impl) + " peer: " + peers_reason_);
  throw InvalidArgument(std::string("the ") + to_string(cfg.impl) + " implementation launches no arlab kernel");
}

model::KernelResources FusedRunner::resources(const LaunchConfig& cfg) const {
  model::KernelResources res;
  if (cfg.impl == Impl::nccl || cfg.impl == Impl::nccl_symmetric || cfg.impl == Impl::vllm) return res;
  const RunnerKernel& k = kernel_for(cfg);
  res.regs_per_thread = k.regs;
  res.smem_per_block_bytes = k.static_smem + static_cast<int>(kernels::fused_dynamic_smem_bytes(k.kernel.key, cfg));
  return res;
}

CheckedCall FusedRunner::prepare(const Problem& given, const LaunchConfig& cfg) const {
  Problem call = given;
  call.algo = cfg.algo;  // a call runs with its configuration's algorithm
  validate(call);
  Problem shape = shape_;
  shape.algo = call.algo;
  if (!same_except_tokens(call, shape))
    throw InvalidArgument("call differs from the runner's problem in more than tokens and algorithm (runner: H " +
                          std::to_string(shape_.hidden) + " " + to_string(shape_.dtype) + " N " +
                          std::to_string(shape_.nranks) + " " + to_string(shape_.pattern) + ")");
  if (call.tokens > shape_.tokens)
    throw InvalidArgument("tokens = " + std::to_string(call.tokens) + " exceeds the " + std::to_string(shape_.tokens) +
                          " tokens the runner's tensors hold");
  node_.check_fits(call);
  const bool real_node = node_.topology() == "mpi";
  const std::string refusal = implementation_refusal(cfg.impl, call, real_node, node_.rank_spec().cc_major);
  if (!refusal.empty()) throw InvalidArgument(refusal);
  if (is_peer(cfg.impl) && !peers_) throw InvalidArgument(std::string("the ") + to_string(cfg.impl) + " peer: " + peers_reason_);
  if (cfg.impl == Impl::nccl || cfg.impl == Impl::nccl_symmetric) {
    NcclComm& comm = node_.nccl();  // throws where NCCL cannot run; makes the communicator (collective)
    if (cfg.impl == Impl::nccl_symmetric) {
      if (!comm.symmetric_supported())
        throw InvalidArgument("the nccl_symmetric baseline needs NCCL >= 2.27 (symmetric memory windows); this "
                              "arlab was built against an older one (" + comm.version() + " loaded)");
      // Collective: windows for the runner's largest call.
      comm.prepare_symmetric(static_cast<size_t>(shape_.tokens) * shape_.hidden * dtype_bytes(shape_.dtype));
    }
    return CheckedCall(call, cfg, nullptr, model::KernelResources{});
  }
  if (cfg.impl == Impl::vllm) return CheckedCall(call, cfg, nullptr, model::KernelResources{});
  const RunnerKernel& k = kernel_for(cfg);
  const model::KernelResources res = resources(cfg);
  Problem legal_as = call;
  if (cfg.impl == Impl::unfused) legal_as.pattern = Pattern::ar;  // its all-reduce-only kernel's legality
  model::check_legal(legal_as, cfg, node_.rank_spec(), res);
  return CheckedCall(call, cfg, &k, res);
}

int FusedRunner::kernels_per_call(const LaunchConfig& cfg) const {
  return !is_kernel_body(cfg.impl) && has_residual(shape_.pattern) ? 2 : 1;
}

LaunchConfig FusedRunner::norm_config(const Problem& call) const {
  return model::separate_norm_config(call, node_.rank_spec());
}

void FusedRunner::enqueue_rank(int r, const CheckedCall& checked, int set, bool gate, CuptiKernelTimer* timer,
                               uint64_t tag) {
  if (set < 0 || set >= nsets())
    throw InvalidArgument("input set " + std::to_string(set) + " outside [0, " + std::to_string(nsets()) + ")");
  const Problem& call = checked.problem();
  const LaunchConfig& cfg = checked.config();
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
  const size_t count = static_cast<size_t>(call.tokens) * static_cast<size_t>(call.hidden);
  const void* sum = t.baseline_sum();  // where a baseline's all-reduce step leaves the sum
  switch (cfg.impl) {
    case Impl::reference:
    case Impl::lean:
      if (!skip) rank.launch_fused(checked.kernel()->kernel, params, cfg);
      break;
    case Impl::flashinfer:
      if (!skip)
        ARLAB_CUDA_CHECK_RANK(r, peers::launch_flashinfer(call, cfg, peers_->flashinfer_args(r, params), rank.stream()));
      break;
    case Impl::unfused: {
      kernels::FusedParams ar = params;
      ar.allreduce_out = t.baseline_sum();
      if (!skip) rank.launch_fused(checked.kernel()->kernel, ar, cfg);
      break;
    }
    case Impl::nccl:
      if (!skip) node_.nccl().all_reduce_sum(params.x, t.baseline_sum(), count, call.dtype, rank.stream());
      break;
    case Impl::nccl_symmetric:
      // The sum lands in NCCL's registered receive buffer; the norm kernel reads it there.
      if (!skip) sum = node_.nccl().all_reduce_sum_symmetric(params.x, count, call.dtype, rank.stream());
      if (!skip && !has_residual(call.pattern))  // pattern ar: the gate reads allreduce_out (a copy, untimed)
        ARLAB_CUDA_CHECK_RANK(r, cudaMemcpyAsync(t.baseline_sum(), sum, count * dtype_bytes(call.dtype),
                                                 cudaMemcpyDeviceToDevice, rank.stream()));
      break;
    case Impl::vllm:
      // vLLM's registered-buffer path: x is copied into this rank's registered input first (a copy,
      // not a kernel: outside the timed call, which CUPTI kernel records delimit).
      ARLAB_CUDA_CHECK_RANK(r, cudaMemcpyAsync(peers_->vllm_input(r), params.x, count * dtype_bytes(call.dtype),
                                               cudaMemcpyDeviceToDevice, rank.stream()));
      if (!skip)
        ARLAB_CUDA_CHECK_RANK(r, peers::launch_vllm(call, peers_->vllm_args(r, t.baseline_sum()), rank.stream()));
      break;
  }
  if (kernels_per_call(cfg) == 2) {
    // The separate norm kernel reads the sum the all-reduce step left (baseline_sum(), or NCCL's
    // symmetric receive buffer).
    kernels::FusedParams norm = params;
    norm.x = sum;
    const LaunchConfig ncfg = norm_config(call);
    norm.cluster = ncfg.cluster;
    norm.vecs_per_thread = ncfg.vecs_per_thread;
    if (timer) timer->set_tag(tag | kSecondKernelTagBit);
    ARLAB_CUDA_CHECK_RANK(r, kernels::launch_norm(norm_kernel_, norm, ncfg, rank.stream()));
  }
  if (timer) timer->clear_tag();
}

void FusedRunner::enqueue(const CheckedCall& call, int set, bool gate, CuptiKernelTimer* timer, uint64_t tag_base) {
  for (int r : node_.local_ranks()) enqueue_rank(r, call, set, gate, timer, tag_base + static_cast<uint64_t>(r));
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

ref::GateReport FusedRunner::check(const CheckedCall& call) {
  poison(call.problem());
  enqueue(call, 0, /*gate=*/false);
  node_.synchronize();
  return judge(call.problem(), 0, download(call.problem()));
}

}  // namespace arlab::harness
