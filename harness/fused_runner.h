// One fused problem on a node (emulated or multi-process, harness/node.h): the device tensors of
// every rank this process drives, with uploaded input sets, the kernel
// instantiations (one dispatch and one attribute query each: the reference kernel and, for a
// one-shot shape, the lean kernel -- LaunchConfig::variant picks which one a call runs; both use
// the same workspace, and either may follow the other), the CPU reference (cached per token count),
// the baselines a configuration may ask for instead of the fused kernel (LaunchConfig::impl:
// all-reduce -- arlab's pattern-ar kernel or NCCL -- then the separate norm kernel, whose outputs
// go through the same gate),
// and the operations every user of the node needs: validate a call, enqueue it on all ranks, run it
// checked (poison -> call -> download -> correctness gate of docs/operation.md on every output of every
// rank). Calls may use fewer tokens than the shape (the first rows); everything else is the shape's.
// On a multi-process node each process checks its own ranks and the verdicts, counts and output
// digests are combined across processes (outputs must be bit-identical on all ranks).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "harness/input_sets.h"
#include "harness/node.h"
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

class FusedRunner {
 public:
  // Seeded inputs: set s uses seed + s (x and residual; gamma, a weight, is set 0's in every set). Throws
  // InvalidArgument when the shape does not fit the node or has no kernel.
  FusedRunner(Node& node, const Problem& shape, int nsets, uint64_t seed, ref::Distribution dist);
  // Caller-made inputs, one FusedInputs per set (each of shape.tokens rows).
  FusedRunner(Node& node, const Problem& shape, std::vector<ref::FusedInputs> input_sets);

  Node& node() { return node_; }
  const Problem& shape() const { return shape_; }
  int nsets() const { return static_cast<int>(inputs_.size()); }
  // The reference kernel of the shape.
  const kernels::FusedKernel& kernel() const { return kernel_; }
  // The kernel whose registers and name a configuration's row records: the fused kernel of
  // cfg.variant (the lean one for a lean one-shot call), or the all-reduce-only kernel for an
  // unfused baseline (nccl: the reference kernel, the closest arlab kernel; its row's regs is 0).
  // Throws InvalidArgument for a variant the shape has no kernel of (lean with two-shot).
  const kernels::FusedKernel& kernel_for(const LaunchConfig& cfg) const;
  // Rank r's device tensors (r a local rank): inputs of every set, outputs of the last call.
  const RankTensors& tensors(int r) const { return *tensors_.at(static_cast<size_t>(r)); }
  // Registers per thread of the reference kernel (resources(cfg) has every kernel's).
  int registers_per_thread() const { return regs_; }
  // Registers and shared memory (static + this configuration's dynamic) for model/ legality: of
  // the fused kernel of cfg.variant, or of the all-reduce-only kernel for an unfused configuration
  // (0 for nccl).
  model::KernelResources resources(const LaunchConfig& cfg) const;
  // Kernels one call of `cfg` launches per rank whose times make the call's time: 1 (fused, or a
  // baseline of pattern ar), 2 (all-reduce, then the separate norm kernel).
  int kernels_per_call(const LaunchConfig& cfg) const;
  // The separate norm kernel's configuration for a call (model::separate_norm_config).
  LaunchConfig norm_config(const Problem& call) const;

  // Throws InvalidArgument naming the problem: call differs from the shape in anything but
  // tokens / config, tokens above the tensors or the workspace, a non-reference kernel variant
  // with a two-shot call or a baseline (only fused one-shot calls have the lean body), an illegal configuration
  // (model::check_legal against the rank's partition spec; for unfused, of the all-reduce-only
  // kernel), nccl where the node has no NCCL (emulated node) or N > 2 (NCCL sums in ring order,
  // not in rank order, so the gate's bit-exact sum holds at N = 2 only). Collective for nccl: the
  // first nccl call makes the node's communicator.
  void validate_call(const Problem& call, const LaunchConfig& cfg) const;

  // Enqueues the call on every rank (asynchronous). With `gate`, each rank's kernel is preceded by
  // the start gate. With a timer, each rank's launch is tagged tag_base + rank for CUPTI.
  void enqueue(const Problem& call, const LaunchConfig& cfg, int set, bool gate, CuptiKernelTimer* timer = nullptr,
               uint64_t tag_base = 0);
  // The same for one rank only (graph capture per rank; fault-injection tests).
  void enqueue_rank(int rank, const Problem& call, const LaunchConfig& cfg, int set, bool gate,
                    CuptiKernelTimer* timer = nullptr, uint64_t tag = 0);

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
  ref::GateReport check(const Problem& call, const LaunchConfig& cfg);
  // The gate of outputs of a call on input set `set`.
  ref::GateReport judge(const Problem& call, int set, const std::vector<ref::FusedOutputs>& per_rank);

 private:
  struct Expected {
    ref::FusedOutputs outputs;
    ref::ExactOutputs exact;
  };
  const Expected& expected(const Problem& call, int set);
  void setup();
  void preload_norm_kernel();

  Node& node_;
  Problem shape_;
  std::vector<ref::FusedInputs> inputs_;
  kernels::FusedKernel kernel_;
  int regs_ = 0;
  int static_smem_ = 0;
  // The lean one-shot kernel (KernelVariant::lean); fn nullptr for a two-shot shape.
  kernels::FusedKernel lean_kernel_;
  int lean_regs_ = 0, lean_static_smem_ = 0;
  // The baselines' kernels: the all-reduce-only kernel of the same algorithm, N, dtype and
  // accumulation (pattern ar), and the separate norm kernel (patterns with an epilogue).
  kernels::FusedKernel ar_kernel_;
  int ar_regs_ = 0, ar_static_smem_ = 0;
  kernels::NormKernel norm_kernel_;
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
