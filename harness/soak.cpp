// Implementation of harness/soak.h.
#include "harness/soak.h"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <vector>

#include "harness/check.h"
#include "harness/cuda_resources.h"
#include "harness/fused_runner.h"
#include "kernels/soak_reference.h"
#include "model/calibration.h"
#include "model/policies.h"
#include "reference/dtypes.h"
#include "reference/fused_reference.h"

namespace arlab::harness {
namespace {

constexpr int kCountersPerCall = 2;  // sum mismatches, norm beyond 1 ulp (kernels/soak_reference.h)
constexpr int kBf16Bytes = 2;

// Ordered distance of two bf16 bit patterns in representable values.
int bf16_ulp_distance(uint32_t a, uint32_t b) {
  constexpr uint32_t kSign = 0x8000u, kMagnitude = 0x7FFFu;
  const int oa = (a & kSign) ? -static_cast<int>(a & kMagnitude) : static_cast<int>(a);
  const int ob = (b & kSign) ? -static_cast<int>(b & kMagnitude) : static_cast<int>(b);
  return std::abs(oa - ob);
}

// The simple implementation's outputs of one input set, for the largest call (smaller calls use
// the first rows: every output row depends on its own token only).
struct Expected {
  DeviceBuffer sum, norm;
};

}  // namespace

void check_soak_shape(const Problem& shape) {
  validate(shape);
  if (shape.dtype != DType::bf16 || shape.acc != Accumulation::pairwise ||
      (shape.pattern != Pattern::ar && shape.pattern != Pattern::ar_res_rms))
    throw InvalidArgument(std::string("the soak's simple GPU implementation covers bf16, pairwise, patterns ar and "
                                      "ar_res_rms (got ") + to_string(shape.dtype) + ", " + to_string(shape.acc) +
                          ", " + to_string(shape.pattern) + ")");
}

SoakReport run_soak(Node& node, const Problem& shape_in, const SoakOptions& opt) {
  check_soak_shape(shape_in);
  if (static_cast<int>(node.local_ranks().size()) != node.nranks())
    throw InvalidArgument("the soak runs on the emulated node (every rank in this process)");
  if (opt.calls < 1 || opt.max_tokens < 1 || opt.sets < 1 || opt.sets > kMaxInputSets || opt.sync_every < 1)
    throw InvalidArgument("soak: calls (" + std::to_string(opt.calls) + "), max tokens (" +
                          std::to_string(opt.max_tokens) + ") and sync interval (" + std::to_string(opt.sync_every) +
                          ") must be >= 1, input sets (" + std::to_string(opt.sets) + ") in [1, " +
                          std::to_string(kMaxInputSets) + "]");
  Problem shape = shape_in;
  shape.tokens = opt.max_tokens;
  FusedRunner runner(node, shape, opt.sets, opt.seed, ref::Distribution::normal);
  const bool with_norm = shape.pattern == Pattern::ar_res_rms;
  const int n = node.nranks();
  const size_t tensor_bytes = static_cast<size_t>(shape.tokens) * static_cast<size_t>(shape.hidden) * kBf16Bytes;
  const cudaStream_t s0 = node.rank(0).stream();

  // The simple implementation's outputs for every input set.
  std::vector<Expected> expected;
  for (int set = 0; set < opt.sets; ++set) {
    Expected e{DeviceBuffer(tensor_bytes), DeviceBuffer(with_norm ? tensor_bytes : 0)};
    kernels::SoakReferenceParams p;
    for (int r = 0; r < n; ++r) p.x[r] = runner.tensors(r).x(set);
    p.residual_in = runner.tensors(0).residual(set);  // the same on every rank (docs/operation.md)
    p.gamma = runner.tensors(0).gamma();
    p.sum_out = e.sum.data();
    p.norm_out = e.norm.data();
    p.eps = shape.eps;
    p.nranks = n;
    p.tokens = shape.tokens;
    p.hidden = shape.hidden;
    p.with_norm = with_norm ? 1 : 0;
    ARLAB_CUDA_CHECK(kernels::launch_soak_reference(p, s0));
    expected.push_back(std::move(e));
  }
  ARLAB_CUDA_CHECK(cudaStreamSynchronize(s0));

  // Trust, but verify: set 0 of the simple implementation against the CPU reference.
  ref::FusedInputs in0 = ref::make_inputs(shape, opt.seed, ref::Distribution::normal);
  const ref::FusedOutputs cpu = ref::reference_fused(shape, in0);
  const ref::HostTensor& cpu_sum = with_norm ? cpu.residual_out : cpu.allreduce_out;
  std::vector<uint16_t> gpu_sum(tensor_bytes / kBf16Bytes), gpu_norm(with_norm ? tensor_bytes / kBf16Bytes : 0);
  ARLAB_CUDA_CHECK(cudaMemcpy(gpu_sum.data(), expected[0].sum.data(), tensor_bytes, cudaMemcpyDeviceToHost));
  if (with_norm)
    ARLAB_CUDA_CHECK(cudaMemcpy(gpu_norm.data(), expected[0].norm.data(), tensor_bytes, cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < cpu_sum.numel(); ++i) {
    if (gpu_sum[static_cast<size_t>(i)] != cpu_sum.bits(i))
      throw CudaError("soak: the simple GPU implementation disagrees with the CPU reference at element " +
                      std::to_string(i) + " of the sum (set 0); the soak would judge against a wrong oracle");
    if (with_norm && bf16_ulp_distance(gpu_norm[static_cast<size_t>(i)], cpu.norm_out.bits(i)) > 1)
      throw CudaError("soak: the simple GPU implementation's norm_out is more than 1 ulp from the CPU reference at "
                      "element " + std::to_string(i) + " (set 0)");
  }

  SoakReport rep;
  rep.reference_checked_tokens = shape.tokens;
  // Per call slot of a sync interval, per rank: the compare kernel's counters.
  const size_t counter_words = static_cast<size_t>(opt.sync_every) * n * kCountersPerCall;
  DeviceBuffer counters(counter_words * sizeof(unsigned long long));
  ARLAB_CUDA_CHECK(cudaMemset(counters.data(), 0, counters.bytes()));
  std::vector<unsigned long long> host_counters(counter_words);

  const model::KernelResources res = runner.resources(LaunchConfig{});
  std::map<int, CheckedCall> call_of;  // tokens -> the call at the trtllm configuration on this node
  std::mt19937_64 rng(opt.seed);
  std::uniform_int_distribution<int> pick_tokens(1, opt.max_tokens);
  const auto t0 = std::chrono::steady_clock::now();
  int in_interval = 0;
  auto drain = [&]() {
    node.synchronize();  // throws DeviceTimeout on a fault
    ARLAB_CUDA_CHECK(cudaMemcpy(host_counters.data(), counters.data(), counters.bytes(), cudaMemcpyDeviceToHost));
    for (int c = 0; c < in_interval; ++c) {
      bool any = false;
      for (int r = 0; r < n; ++r) {
        const size_t k = (static_cast<size_t>(c) * n + r) * kCountersPerCall;
        rep.sum_mismatches += static_cast<long long>(host_counters[k]);
        rep.norm_over_1ulp += static_cast<long long>(host_counters[k + 1]);
        any = any || host_counters[k] || host_counters[k + 1];
      }
      rep.mismatched_calls += any ? 1 : 0;
    }
    ARLAB_CUDA_CHECK(cudaMemset(counters.data(), 0, counters.bytes()));
    in_interval = 0;
  };
  try {
    for (long long i = 0; i < opt.calls; ++i) {
      Problem call = shape;
      call.tokens = pick_tokens(rng);
      const int set = static_cast<int>(i % opt.sets);
      auto it = call_of.find(call.tokens);
      if (it == call_of.end()) {
        const LaunchConfig cfg = model::choose_launch_config(model::Policy::trtllm, call, node.rank_spec(), res,
                                                             model::default_calibration());
        it = call_of.emplace(call.tokens, runner.prepare(call, cfg)).first;
      }
      runner.poison(call);
      runner.enqueue(it->second, set, /*gate=*/false);
      for (int r = 0; r < n; ++r) {
        const RankTensors& t = runner.tensors(r);
        kernels::SoakCompareParams p;
        p.sum = with_norm ? t.residual_out() : t.allreduce_out();
        p.norm = with_norm ? t.norm_out() : nullptr;
        p.expected_sum = expected[static_cast<size_t>(set)].sum.data();
        p.expected_norm = expected[static_cast<size_t>(set)].norm.data();
        p.elements = static_cast<long long>(call.tokens) * call.hidden;
        p.counters = counters.as<unsigned long long>() + (static_cast<size_t>(in_interval) * n + r) * kCountersPerCall;
        ARLAB_CUDA_CHECK_RANK(r, kernels::launch_soak_compare(p, node.rank(r).stream()));
        rep.elements_compared += p.elements;
      }
      ++rep.calls;
      if (++in_interval == opt.sync_every) drain();
    }
    drain();
  } catch (const DeviceTimeout& e) {
    ++rep.timeouts;
    rep.fault = e.what();
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

}  // namespace arlab::harness
