// arlab_epilogue_probe: the two-shot epilogue alone, arlab's reference beside FlashInfer's, on one GPU.
//
// Why (issue 24, docs/kernels.md "The faithful reference"): at TP4/TP8 with 4096 tokens the reference
// two-shot trails the library's by 0.13-0.30 us per token each block runs, and the gap sits in the part
// the `ar` pattern does not run (residual load, residual_out store, the norm's block reduction,
// norm_out store). Inside the node the two kernels cannot be profiled one at a time: each waits for its
// peers, and a profiler that serialises launches would leave every wait to time out. This probe runs
// only that part, with no peers: block b of `grid` blocks takes tokens b, b + grid, ... of a [tokens, H]
// bf16 problem; per token it loads the token's all-reduced sum (from a plain buffer standing in for the
// comm buffer) and residual_in, adds, stores residual_out, takes the RMSNorm with gamma and stores
// norm_out, in these kernels:
//   library                    FlashInfer's own code: its IndexHelper and FusedOp
//                              (trtllm_allreduce_fusion.cuh of the pinned wheel, included at build
//                              time), in its two-shot epilogue loop;
//   reference                  arlab's fused_token_epilogue<ReferenceEpilogue> in the reference
//                              two-shot's loop, the sum loaded with ld.relaxed.sys as the kernel loads
//                              it from its comm buffer;
//   reference_unready          the reference as it was before kFirstVectorReady (the first vector's norm
//                              operands loaded and unpacked after the last barrier);
//   reference_plain_sum        the reference with a plain load of the sum;
//   reference_pow2             the mean square as a multiplication by 1/H (H a power of two: the same
//                              bits as the division; kPow2Scale);
//   reference_gamma_held       gamma loaded once before the loop and held, as FusedOp does (kGammaHeld);
//   reference_pow2_gamma_held  both;
//   lean_twoshot_epilogue      the lean two-shot body's epilogue (TwoshotLeanEpilogue: one barrier per
//                              token, kPow2Scale), for scale;
//   lean_twoshot_epilogue_div  the same dividing by H.
// A probe build (ARLAB_KERNEL_PROBE, the top-level CMakeLists.txt) compiles this tool with the same
// epilogue switches as the kernels (rsqrt_norm, library_norm, ...): its reference kernels then run them.
// One vector (16 bytes, 8 elements) per thread per token and no cluster: tpb = H / 8, H <= 8192.
// The launches are timed with CUDA events, the kernels interleaved per repetition; each kernel's first
// launch is checked against the library's outputs (residual_out bit for bit; norm_out within 1 bf16 ulp,
// the library taking rsqrtf where the reference takes the IEEE 1 / sqrt).
// Output: CSV on stdout, one line per kernel and repetition (schema in the header line), then a
// summary line per kernel on stderr. Nothing here changes clocks or device settings.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "flashinfer/comm/trtllm_allreduce_fusion.cuh"
#include "harness/check.h"
#include "harness/cuda_resources.h"
#include "kernels/fused_epilogue.cuh"
#include "kernels/twoshot_lean_kernel.cuh"

namespace {

namespace fi = flashinfer::trtllm_allreduce_fusion;
namespace ak = arlab::kernels;
using T = __nv_bfloat16;
constexpr int kVec = 8;  // bf16 elements per 16-byte vector
constexpr fi::AllReduceFusionPattern kLibraryPattern = fi::AllReduceFusionPattern::kARResidualRMSNorm;

// The library's epilogue loop (allreduce_fusion_kernel_twoshot_sync, after its second barrier) over one
// range of tokens: FusedOp loads gamma and the first residual in its constructor, update() the next
// residual, operator() adds, stores residual_out, normalises and stores norm_out.
__global__ void library_epilogue(fi::AllReduceFusionParams<T> params, const T* sums) {
  fi::IndexHelper<T> ix(params);
  fi::FusedOp<kLibraryPattern, T> op(params, ix.access_id, ix.access_id_in_token);
  for (int idx = ix.access_id, tidx = ix.token_id; idx < ix.tot_access; idx += ix.access_stride, tidx += ix.token_stride) {
    op.update(idx);
    flashinfer::vec_t<T, kVec> s;
    s.load(sums + static_cast<long long>(idx) * kVec);
    op(s, tidx);
  }
}

// The reference two-shot's epilogue loop (kernels/twoshot_kernel.cuh) over the same tokens, with the
// epilogue options E (kernels/fused_epilogue.cuh); kGammaHeld: gamma of the thread's vector loaded
// once before the loop, as the library's FusedOp holds it.
template <typename E, bool kRelaxedSysSum>
__global__ void __launch_bounds__(arlab::kMaxThreadsPerBlock, 1)
    reference_epilogue(const __grid_constant__ ak::FusedParams p, const char* sums) {
  using Tr = ak::DTypeTraits<T>;
  __shared__ ak::EpilogueShared sh;
  const ak::TokenMapping m = ak::token_mapping<T>(p);
  const ak::QuantScales q{};  // ar_res_rms quantizes nothing
  ak::HeldOperands held;
  if constexpr (E::kGammaHeld)
    if (m.t_in_cluster < m.vecs_per_token)
      held.gamma0 = ak::ld_input_v4(static_cast<const char*>(p.gamma) + static_cast<long long>(m.t_in_cluster) * arlab::kVectorBytes);
  int round = 0;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters, ++round)
    ak::fused_token_epilogue<T, arlab::Pattern::ar_res_rms, E>(
        p, m, sh, nullptr, q, tok, round,
        [&](long long off, float (&acc)[kVec]) {
          const uint4 s = kRelaxedSysSum ? ak::ld_relaxed_sys_v4(sums + off) : *reinterpret_cast<const uint4*>(sums + off);
#pragma unroll
          for (int e = 0; e < kVec; ++e) acc[e] = Tr::to_float(ak::vec_get<T>(s, e));
        },
        held);
}

// Epilogue options beside the reference's and the lean body's (fused_token_epilogue's EpilogueOptions).
template <bool kGamma, bool kLean, bool kPow2, bool kReady>
struct EpilogueWith {
  static constexpr bool kGammaHeld = kGamma;
  static constexpr bool kLeanReduce = kLean;
  static constexpr bool kPow2Scale = kPow2;
  static constexpr bool kFirstVectorReady = kReady;
  static constexpr bool kResidualHeld = false;
};
template <bool kGamma, bool kPow2, bool kReady = ak::ReferenceEpilogue::kFirstVectorReady>
using ReferenceWith = EpilogueWith<kGamma, false, kPow2, kReady>;
// The lean two-shot epilogue with the mean square divided by H (no kPow2Scale).
using LeanDividing = EpilogueWith<false, true, false, false>;

// The ARLAB_KERNEL_PROBE switches this binary's reference kernels were compiled with.
constexpr const char* kProbeSwitches = ""
#if ARLAB_PROBE_RSQRT_NORM
                                       " rsqrt_norm"
#endif
#if ARLAB_PROBE_LIBRARY_NORM
                                       " library_norm"
#endif
#if ARLAB_PROBE_PLAIN_INPUT_LOADS
                                       " plain_input_loads"
#endif
    ;

struct Options {
  int hidden = 2048;
  int tokens_per_block = 128;
  int grid = 0;  // 0: the device's SM count (one block per SM, as the emulated node's partitions run)
  int launches = 20;
  int reps = 9;
  float eps = 1e-6f;
};

uint16_t bf16_bits(float f) {
  const __nv_bfloat16 b = __float2bfloat16_rn(f);
  uint16_t u;
  std::memcpy(&u, &b, 2);
  return u;
}

std::vector<uint16_t> random_bf16(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<uint16_t> v(n);
  for (auto& x : v) x = bf16_bits(d(gen));
  return v;
}

// bf16 bit patterns as ordered integers (for ulp distances between finite values).
int ordered(uint16_t b) { return (b & 0x8000u) ? -static_cast<int>(b & 0x7FFFu) : static_cast<int>(b); }

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

int run(const Options& o) {
  using arlab::harness::DeviceBuffer;
  int dev = 0, sms = 0;
  ARLAB_CUDA_CHECK(cudaGetDevice(&dev));
  ARLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop{};
  ARLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  const int tpb = o.hidden / kVec;
  const int grid = o.grid > 0 ? o.grid : sms;
  const int tokens = grid * o.tokens_per_block;
  const size_t elems = static_cast<size_t>(tokens) * o.hidden, bytes = elems * 2;
  std::fprintf(stderr,
               "arlab_epilogue_probe: %s (%d SMs), bf16 ar_res_rms epilogue, H %d, tpb %d (one vector per thread, no "
               "cluster), grid %d, %d tokens per block (%d tokens), %d launches x %d repetitions per kernel; probe switches:%s\n",
               prop.name, sms, o.hidden, tpb, grid, o.tokens_per_block, tokens, o.launches, o.reps,
               kProbeSwitches[0] != '\0' ? kProbeSwitches : " none");

  const std::vector<uint16_t> h_sums = random_bf16(elems, 11u, -2.0f, 2.0f);
  const std::vector<uint16_t> h_res = random_bf16(elems, 12u, -1.0f, 1.0f);
  const std::vector<uint16_t> h_gamma = random_bf16(static_cast<size_t>(o.hidden), 13u, 0.5f, 1.5f);
  DeviceBuffer sums(bytes), residual_in(bytes), gamma(static_cast<size_t>(o.hidden) * 2);
  DeviceBuffer lib_res_out(bytes), lib_norm_out(bytes), ref_res_out(bytes), ref_norm_out(bytes);
  ARLAB_CUDA_CHECK(cudaMemcpy(sums.data(), h_sums.data(), bytes, cudaMemcpyHostToDevice));
  ARLAB_CUDA_CHECK(cudaMemcpy(residual_in.data(), h_res.data(), bytes, cudaMemcpyHostToDevice));
  ARLAB_CUDA_CHECK(cudaMemcpy(gamma.data(), h_gamma.data(), h_gamma.size() * 2, cudaMemcpyHostToDevice));

  fi::AllReduceFusionParams<T> lp{};
  lp.nranks = 1;
  lp.rank = 0;
  lp.size = static_cast<int>(elems);
  lp.hidden_dim = o.hidden;
  lp.residual_in = residual_in.data();
  lp.residual_out = lib_res_out.data();
  lp.norm_out = lib_norm_out.data();
  lp.rms_gamma = gamma.data();
  lp.rms_eps = o.eps;
  lp.pattern = kLibraryPattern;

  ak::FusedParams rp{};
  rp.residual_in = residual_in.data();
  rp.gamma = gamma.data();
  rp.residual_out = ref_res_out.data();
  rp.norm_out = ref_norm_out.data();
  rp.eps = o.eps;
  rp.tokens = tokens;
  rp.hidden = o.hidden;
  rp.cluster = 1;
  rp.vecs_per_thread = 1;

  const T* lsums = sums.as<const T>();
  const char* rsums = sums.as<const char>();
  // Every kernel has the same launch shape and arguments but the library's; index 0 is the library.
  struct Kernel {
    const char* name;
    const void* fn;
  };
  const Kernel kernels[] = {
      {"library", nullptr},
      {"reference", reinterpret_cast<const void*>(&reference_epilogue<ak::ReferenceEpilogue, true>)},
      {"reference_unready", reinterpret_cast<const void*>(&reference_epilogue<ReferenceWith<false, false, false>, true>)},
      {"reference_plain_sum", reinterpret_cast<const void*>(&reference_epilogue<ak::ReferenceEpilogue, false>)},
      {"reference_pow2", reinterpret_cast<const void*>(&reference_epilogue<ReferenceWith<false, true>, true>)},
      {"reference_gamma_held", reinterpret_cast<const void*>(&reference_epilogue<ReferenceWith<true, false>, true>)},
      {"reference_pow2_gamma_held", reinterpret_cast<const void*>(&reference_epilogue<ReferenceWith<true, true>, true>)},
      {"lean_twoshot_epilogue", reinterpret_cast<const void*>(&reference_epilogue<ak::TwoshotLeanEpilogue, true>)},
      {"lean_twoshot_epilogue_div", reinterpret_cast<const void*>(&reference_epilogue<LeanDividing, true>)},
  };
  constexpr int kKernels = static_cast<int>(sizeof(kernels) / sizeof(kernels[0]));
  auto launch = [&](int which) {
    if (which == 0) {
      library_epilogue<<<grid, tpb>>>(lp, lsums);
    } else {
      void* args[] = {&rp, const_cast<char**>(&rsums)};
      ARLAB_CUDA_CHECK(cudaLaunchKernel(kernels[which].fn, dim3(grid), dim3(tpb), args, 0, nullptr));
    }
    ARLAB_CUDA_CHECK(cudaGetLastError());
  };

  // The check: every kernel's outputs against the library's.
  launch(0);
  ARLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<uint16_t> lib_res(elems), lib_norm(elems), res(elems), norm(elems);
  ARLAB_CUDA_CHECK(cudaMemcpy(lib_res.data(), lib_res_out.data(), bytes, cudaMemcpyDeviceToHost));
  ARLAB_CUDA_CHECK(cudaMemcpy(lib_norm.data(), lib_norm_out.data(), bytes, cudaMemcpyDeviceToHost));
  for (int which = 1; which < kKernels; ++which) {
    ARLAB_CUDA_CHECK(cudaMemset(ref_res_out.data(), 0, bytes));
    ARLAB_CUDA_CHECK(cudaMemset(ref_norm_out.data(), 0, bytes));
    launch(which);
    ARLAB_CUDA_CHECK(cudaDeviceSynchronize());
    ARLAB_CUDA_CHECK(cudaMemcpy(res.data(), ref_res_out.data(), bytes, cudaMemcpyDeviceToHost));
    ARLAB_CUDA_CHECK(cudaMemcpy(norm.data(), ref_norm_out.data(), bytes, cudaMemcpyDeviceToHost));
    size_t res_diff = 0, norm_far = 0;
    int max_ulp = 0;
    for (size_t i = 0; i < elems; ++i) {
      res_diff += res[i] != lib_res[i];
      const int u = std::abs(ordered(norm[i]) - ordered(lib_norm[i]));
      max_ulp = std::max(max_ulp, u);
      norm_far += u > 1;
    }
    std::fprintf(stderr, "check %s vs library: residual_out %zu of %zu elements differ; norm_out max %d ulp, %zu beyond 1 ulp\n",
                 kernels[which].name, res_diff, elems, max_ulp, norm_far);
    if (res_diff != 0 || norm_far != 0) {
      std::fprintf(stderr, "arlab_epilogue_probe: %s does not compute what the library does; no timing\n",
                   kernels[which].name);
      return 1;
    }
  }

  arlab::harness::Event start, stop;
  std::vector<std::vector<float>> us(kKernels);
  std::printf("kernel,gpu,hidden,tpb,grid,tokens_per_block,rep,us_per_launch,ns_per_token\n");
  for (int rep = 0; rep < o.reps; ++rep) {
    for (int which = 0; which < kKernels; ++which) {
      const Kernel& k = kernels[which];
      launch(which);  // warm-up of this kernel after the others ran
      ARLAB_CUDA_CHECK(cudaEventRecord(start.get()));
      for (int i = 0; i < o.launches; ++i) launch(which);
      ARLAB_CUDA_CHECK(cudaEventRecord(stop.get()));
      ARLAB_CUDA_CHECK(cudaEventSynchronize(stop.get()));
      float ms = 0.0f;
      ARLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
      const float per_launch = 1000.0f * ms / static_cast<float>(o.launches);
      us[static_cast<size_t>(which)].push_back(per_launch);
      std::printf("%s,%s,%d,%d,%d,%d,%d,%.3f,%.2f\n", k.name, prop.name, o.hidden, tpb, grid, o.tokens_per_block, rep,
                  per_launch, 1000.0f * per_launch / static_cast<float>(o.tokens_per_block));
    }
  }
  const float lib = median(us[0]);
  for (int which = 0; which < kKernels; ++which) {
    const std::vector<float>& u = us[static_cast<size_t>(which)];
    const float m = median(u);
    std::fprintf(stderr, "summary %-26s median %.3f us per launch (min %.3f, max %.3f), %.1f ns per token, library / this %.3f\n",
                 kernels[which].name, m, *std::min_element(u.begin(), u.end()), *std::max_element(u.begin(), u.end()),
                 1000.0f * m / static_cast<float>(o.tokens_per_block), lib / m);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"arlab_epilogue_probe: the two-shot ar_res_rms epilogue alone (no peers), arlab's reference beside "
               "FlashInfer's FusedOp, bf16, one vector per thread, timed with CUDA events"};
  app.add_option("--hidden", o.hidden, "hidden size H; tpb = H / 8 (one vector per thread)")
      ->check(CLI::Range(256, 8192))
      ->capture_default_str();
  app.add_option("--tokens-per-block", o.tokens_per_block, "tokens each block runs in sequence")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--grid", o.grid, "blocks (0: the device's SM count)")->check(CLI::Range(0, 4096))->capture_default_str();
  app.add_option("--launches", o.launches, "launches per timed repetition")->check(CLI::Range(1, 10000))->capture_default_str();
  app.add_option("--reps", o.reps, "repetitions per kernel")->check(CLI::Range(1, 1000))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (o.hidden % (kVec * ak::kWarpSize) != 0) {
    std::fprintf(stderr, "arlab_epilogue_probe: --hidden %d: must be a multiple of %d (whole warps at one vector per thread)\n",
                 o.hidden, kVec * ak::kWarpSize);
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "arlab_epilogue_probe: %s\n", e.what());
    return 1;
  }
}
