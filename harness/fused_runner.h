// One fused problem on a node (emulated or multi-process, harness/node.h): the device tensors of
// every rank this process drives, with uploaded input sets; the kernels of every implementation of
// common/implementations.h that the problem's shape can run (one dispatch and one attribute query
// each: every kernel body with each algorithm it has, and the baselines' all-reduce-only and
// separate norm kernels), all on the same workspace, in any order; the CPU reference (cached per
// token count); and the operations every user of the node needs: prepare a call (the one place a
// call and its configuration are validated, giving a CheckedCall), enqueue it on all ranks, run it
// checked (poison -> call -> download -> correctness gate of docs/operation.md on every output of every
// rank). A call takes its algorithm from its configuration (a group may mix one- and two-shot
// calls) and may use fewer tokens than the shape (the first rows); everything else is the shape's.
// On a multi-process node each process checks its own ranks and the verdicts, counts and output
// digests are combined across processes (outputs must be bit-identical on all ranks).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "common/implementations.h"
#include "common/launch_config.h"
#include "common/problem.h"
#include "harness/input_sets.h"
#include "harness/node.h"
#include "harness/peer_calls.h"
#include "harness/rank_tensors.h"
#include "kernels/dispatch.h"
#include "kernels/norm_dispatch.h"
#include "model/legality.h"
#include "reference/compare.h"
#include "reference/fused_reference.h"

namespace arlab::harness {

class CuptiKernelTimer;

// A baseline call is two kernels per rank (all-reduce, then the separate norm kernel); the second
// is timed under the call's CUPTI tag with this bit set, so the timing code can report the call
// (first start to last end) and its all-reduce alone.
constexpr uint64_t kSecondKernelTagBit = 1ull << 62;

// A kernel the runner launches, with what legality needs of it.
struct RunnerKernel {
  kernels::FusedKernel kernel;
  int regs = 0;
  int static_smem = 0;
};

// A call the runner has validated: the problem (its algorithm the configuration's), the
// configuration, the kernel it launches (nullptr for nccl) and that kernel's resources. Only
// FusedRunner::prepare makes one, so whatever takes a CheckedCall runs it without checking again.
class CheckedCall {
 public:
  const Problem& problem() const { return problem_; }
  const LaunchConfig& config() const { return cfg_; }
  const RunnerKernel* kernel() const { return kernel_; }
  const model::KernelResources& resources() const { return res_; }

 private:
  friend class FusedRunner;
  CheckedCall(const Problem& p, const LaunchConfig& c, const RunnerKernel* k, const model::KernelResources& r)
      : problem_(p), cfg_(c), kernel_(k), res_(r) {}
  Problem problem_;
  LaunchConfig cfg_;
  const RunnerKernel* kernel_ = nullptr;
  model::KernelResources res_;
};

class FusedRunner {
 public:
  // Seeded inputs: set s uses seed + s (x and residual; gamma, a weight, is set 0's in every set). Throws
  // InvalidArgument when the shape does not fit the node or has no kernel. shape.algo is not used:
  // calls take their configuration's algorithm.
  FusedRunner(Node& node, const Problem& shape, int nsets, uint64_t seed, ref::Distribution dist);
  // Caller-made inputs, one FusedInputs per set (each of shape.tokens rows).
  FusedRunner(Node& node, const Problem& shape, std::vector<ref::FusedInputs> input_sets);

  Node& node() { return node_; }
  const Problem& shape() const { return shape_; }
  int nsets() const { return static_cast<int>(inputs_.size()); }
  // Rank r's device tensors (r a local rank): inputs of every set, outputs of the last call.
  const RankTensors& tensors(int r) const { return *tensors_.at(static_cast<size_t>(r)); }

  // The kernel a configuration runs: its body's kernel of its algorithm (a peer's fused kernel for
  // flashinfer), or for the unfused baseline the reference all-reduce-only kernel (pattern ar) of
  // its algorithm. Throws InvalidArgument for the baselines of other libraries (nccl, vllm: no
  // kernel of arlab's launcher) and for a body without a kernel of that algorithm.
  const RunnerKernel& kernel_for(const LaunchConfig& cfg) const;
  // Registers and shared memory (static + this configuration's dynamic) for model/ legality and the
  // policies: of the kernel kernel_for(cfg) names (0 for nccl). Throws as kernel_for.
  model::KernelResources resources(const LaunchConfig& cfg) const;
  // Kernels one call of `cfg` launches per rank whose times make the call's time: 1 (a fused body,
  // or a baseline of pattern ar), 2 (all-reduce, then the separate norm kernel).
  int kernels_per_call(const LaunchConfig& cfg) const;
  // The separate norm kernel's configuration for a call (model::separate_norm_config).
  LaunchConfig norm_config(const Problem& call) const;

  // The one validation of a call: throws InvalidArgument naming the problem -- the call differs
  // from the shape in anything but tokens and algorithm, tokens above the tensors or the workspace,
  // an implementation that cannot run it (common/implementations.h implementation_refusal: its
  // algorithms, ranks, node), an illegal configuration (model::check_legal against the rank's
  // partition spec; for unfused, of its all-reduce-only kernel). The call runs with cfg.algo.
  // Collective for nccl: the first nccl call makes the node's communicator.
  CheckedCall prepare(const Problem& call, const LaunchConfig& cfg) const;

  // Enqueues the call on every rank (asynchronous). With `gate`, each rank's kernel is preceded by
  // the start gate. With a timer, each rank's launch is tagged tag_base + rank for CUPTI.
  void enqueue(const CheckedCall& call, int set, bool gate, CuptiKernelTimer* timer = nullptr, uint64_t tag_base = 0);
  // The same for one rank only (graph capture per rank; fault-injection tests).
  void enqueue_rank(int rank, const CheckedCall& call, int set, bool gate, CuptiKernelTimer* timer = nullptr,
                    uint64_t tag = 0);

  // Plants a fault for the failure-path tests (`arlab run --inject-fault`, harness/node_core.h):
  // enqueue_rank then skips the fused kernel of, or throws a CudaError for, the rank it names, from
  // that rank's fault.from_call-th enqueued call on (counted from here).
  void inject(const FaultInjection& fault) {
    fault_ = fault;
    calls_enqueued_.assign(kernels::kMaxRanks, 0);
  }

  void poison(const Problem& call);
  std::vector<ref::FusedOutputs> download(const Problem& call);
  // Poison, run on input set 0, synchronize (faults throw DeviceTimeout), download, gate.
  ref::GateReport check(const CheckedCall& call);
  ref::GateReport check(const Problem& call, const LaunchConfig& cfg) { return check(prepare(call, cfg)); }
  // The gate of outputs of a call on input set `set`.
  ref::GateReport judge(const Problem& call, int set, const std::vector<ref::FusedOutputs>& per_rank);

 private:
  struct Expected {
    ref::FusedOutputs outputs;
    ref::ExactOutputs exact;
  };
  const Expected& expected(const Problem& call, int set);
  void setup();
  void setup_peers();
  void preload_norm_kernel();
  RunnerKernel load_kernel(const kernels::KernelKey& key) const;

  Node& node_;
  Problem shape_;
  std::vector<ref::FusedInputs> inputs_;
  // (implementation, algorithm) -> kernel: every kernel body with each algorithm it has, and the
  // unfused baseline's all-reduce-only kernel (the reference body, pattern ar) of each algorithm.
  std::map<std::pair<Impl, Algorithm>, RunnerKernel> kernels_;
  kernels::NormKernel norm_kernel_;  // the baselines' separate norm kernel (patterns with an epilogue)
  // The peers' calls (flashinfer, vllm): made when the node has the peers' workspace part and the
  // build has their kernels; else peers_reason_ says why not.
  std::unique_ptr<PeerCalls> peers_;
  std::string peers_reason_;
  std::vector<std::unique_ptr<RankTensors>> tensors_;
  std::map<std::pair<int, int>, Expected> expected_;  // (tokens, set)
  FaultInjection fault_;
  std::vector<long long> calls_enqueued_ = std::vector<long long>(kernels::kMaxRanks, 0);  // per rank
};

// FNV-1a digest of every output's bytes (cross-process bit-identity check).
uint64_t output_digest(const ref::FusedOutputs& o);
// Collective: folds every process's gate report of its local ranks into `report` (verdict, counts,
// maxima) and fails it when any rank's outputs differ from rank 0's.
void combine_gate_across_processes(const Node& node, const std::vector<ref::FusedOutputs>& local_outputs,
                                   ref::GateReport& report);

// Input sets that keep timed calls out of L2 (docs/measurement.md): enough sets that their x and residual
// of all ranks together exceed twice the L2, at most kMaxInputSets (harness/input_sets.h); 1 when
// one set already does.
int input_sets_for(const Problem& p, long long l2_bytes);

}  // namespace arlab::harness
