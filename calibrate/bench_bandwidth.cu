// Bench `bandwidth`: streaming bandwidth of k SMs, one block per SM (grid = k; on an idle GPU the
// block scheduler puts the blocks of a grid no larger than the SM count on distinct SMs, and every
// block records its %smid so the command warns when they did not), over buffers far larger than L2
// (512 MiB each; L2 is 50 MiB on an H200), so the traffic is HBM traffic.
//   read   16-byte loads (__ldg, as the fused kernel reads its inputs), XOR-accumulated; the sum is
//          stored only if it equals a sentinel the compiler cannot know, so no load is dropped
//   write  16-byte stores
//   copy   a 16-byte load and store per vector; size and gbps count read + written bytes (2 x buffer)
// Each thread keeps 4 independent vectors in flight (a grid-stride loop unrolled by 4), so the bytes
// in flight per SM are tpb x 64. gbps = bytes / CUPTI kernel duration (bytes per ns). Swept: active SMs
// {1, 2, 4, 8, 16, 32, all of the rank's} x tpb {256, 1024}. On the emulated node also read_busy /
// write_busy / copy_busy: all of rank 0's SMs while rank 1's partition streams a copy of its own
// (started before and stopped after the timed calls), the situation of the emulated TP2 node.
//   read_allbusy, write_allbusy, copy_allbusy (emulated node, since 2026-12-05)  all of rank 0's SMs at tpb
//          1024 while EVERY other partition streams the same kind (read, write or copy) over buffers of
//          its own at all of its SMs: the fused kernels at TP4 and TP8 stream on all N partitions at once,
//          and their push and clear phases mostly write, which the copy-based hbm_efficiency does not see
//          (docs/model.md, "HBM-bound phases at TP4 and TP8"); recorded only
//   rows_read, rows_write (+ _pitch4k; + _allbusy on the emulated node; since session 32, recorded only)  the
//          fused kernels' layout: one block per SM, each streaming rows b, b + grid, ... of H bf16 elements,
//          one 16-byte vector per thread (tpb = H / 8, trtllm's one-shot block at these H: the last warp
//          partial where H / 8 is not a multiple of 32), four rows in flight per thread, the rows packed
//          (pitch H x 2 bytes) or padded to a 4 KB pitch. H {6784, 6848, 6912, 7168, 8192}: packed rows start
//          on 256-byte, 128-byte, 512-byte, 2 KB and 16 KB boundaries (the alignments the model-accuracy grids'
//          H give), and only 6784 and 6848 leave a partial warp, so packed
//          against padded at 6848 says whether the alignment or the partial warp costs the rate (the TP8
//          shortfall that follows H: docs/model.md, "HBM-bound phases at TP4 and TP8"). tpb encodes H (x 8).
//   read_l2, write_l2, copy_l2 (and _l2_busy)  the same kernels, at all of the rank's SMs, over buffers
//          that stay in L2 (4 MiB each, 128 passes per kernel; the _busy partner copies buffers of its
//          own of that size): the rates the one-shot Lamport workspace could see where it stays in
//          L2; recorded only (docs/model.md, "The Lamport workspace in L2: measured, not kept").
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "harness/cuda_resources.h"
#include "kernels/device_sync.cuh"

namespace arlab::calibrate {
namespace {

enum class Kind { read = 0, write = 1, copy = 2 };

constexpr unsigned kSentinel = 0x6a09e667u;  // an arbitrary constant the XOR of the data never meets in practice

// The read kernels' sink: XOR of every vector loaded, stored only if it meets kSentinel (so no load is dropped).
__device__ __forceinline__ void xor_into(uint4& acc, const uint4& v) {
  acc.x ^= v.x;
  acc.y ^= v.y;
  acc.z ^= v.z;
  acc.w ^= v.w;
}

template <Kind K>
__global__ void __launch_bounds__(1024)
    stream_kernel(const uint4* src, uint4* dst, long long n, int passes, uint4* sink, unsigned* smids) {
  if (threadIdx.x == 0) smids[blockIdx.x] = smid();
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint4 acc = make_uint4(0u, 0u, 0u, 0u);
  const uint4 pattern = make_uint4(static_cast<unsigned>(first), 1u, 2u, 3u);
  for (int pass = 0; pass < passes; ++pass) {
  long long i = first;
  for (; i + 3 * step < n; i += 4 * step) {
    if constexpr (K == Kind::write) {
      dst[i] = pattern;
      dst[i + step] = pattern;
      dst[i + 2 * step] = pattern;
      dst[i + 3 * step] = pattern;
    } else {
      const uint4 a = __ldg(src + i), b = __ldg(src + i + step), c = __ldg(src + i + 2 * step),
                  d = __ldg(src + i + 3 * step);
      if constexpr (K == Kind::copy) {
        dst[i] = a;
        dst[i + step] = b;
        dst[i + 2 * step] = c;
        dst[i + 3 * step] = d;
      } else {
        xor_into(acc, a);
        xor_into(acc, b);
        xor_into(acc, c);
        xor_into(acc, d);
      }
    }
  }
  for (; i < n; i += step) {
    if constexpr (K == Kind::write) {
      dst[i] = pattern;
    } else {
      const uint4 a = __ldg(src + i);
      if constexpr (K == Kind::copy) {
        dst[i] = a;
      } else {
        xor_into(acc, a);
      }
    }
  }
  }
  if constexpr (K == Kind::read)
    if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == kSentinel) *sink = acc;
}

// Rows of `row_vecs` 16-byte vectors at a pitch of `pitch_vecs`: block b takes rows b, b + grid, ..., four
// at a time; thread t its vector t of each (blockDim.x == row_vecs). Read XOR-accumulates as stream_kernel.
template <Kind K>
__global__ void __launch_bounds__(1024) row_stream_kernel(const uint4* src, uint4* dst, long long rows,
                                                          long long pitch_vecs, uint4* sink, unsigned* smids) {
  if (threadIdx.x == 0) smids[blockIdx.x] = smid();
  const long long step = gridDim.x;
  const long long t = threadIdx.x;
  uint4 acc = make_uint4(0u, 0u, 0u, 0u);
  const uint4 pattern = make_uint4(static_cast<unsigned>(t), 1u, 2u, 3u);
  long long r = blockIdx.x;
  for (; r + 3 * step < rows; r += 4 * step) {
    const long long i0 = r * pitch_vecs + t, i1 = (r + step) * pitch_vecs + t, i2 = (r + 2 * step) * pitch_vecs + t,
                    i3 = (r + 3 * step) * pitch_vecs + t;
    if constexpr (K == Kind::write) {
      dst[i0] = pattern;
      dst[i1] = pattern;
      dst[i2] = pattern;
      dst[i3] = pattern;
    } else {
      const uint4 a = __ldg(src + i0), b = __ldg(src + i1), c = __ldg(src + i2), d = __ldg(src + i3);
      xor_into(acc, a);
      xor_into(acc, b);
      xor_into(acc, c);
      xor_into(acc, d);
    }
  }
  for (; r < rows; r += step) {
    const long long i = r * pitch_vecs + t;
    if constexpr (K == Kind::write) {
      dst[i] = pattern;
    } else {
      const uint4 a = __ldg(src + i);
      xor_into(acc, a);
    }
  }
  if constexpr (K == Kind::read)
    if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == kSentinel) *sink = acc;
}

// A partner's load: passes of kind K (a copy, 16-byte loads only, or 16-byte stores only) over its own
// buffers until the host sets *stop (mapped host memory, read with a relaxed system-scope load by thread 0
// of each block once every `passes_per_poll` passes) or bound_ns after the kernel started (then
// status[1] = 1). status[0] = 1 once block 0 runs.
template <Kind K>
__global__ void __launch_bounds__(1024) busy_stream_kernel(const uint4* src, uint4* dst, long long n,
                                                           int passes_per_poll, const unsigned* stop,
                                                           unsigned* status, unsigned long long bound_ns) {
  __shared__ int done;
  const unsigned long long t0 = kernels::global_timer_ns();
  if (blockIdx.x == 0 && threadIdx.x == 0) kernels::st_release_sys(&status[0], 1u);
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint4 acc = make_uint4(0u, 0u, 0u, 0u);
  const uint4 pattern = make_uint4(static_cast<unsigned>(first), 1u, 2u, 3u);
  for (;;) {
    for (int pass = 0; pass < passes_per_poll; ++pass)
      for (long long i = first; i < n; i += step) {
        if constexpr (K == Kind::copy) dst[i] = __ldg(src + i);
        if constexpr (K == Kind::write) dst[i] = pattern;
        if constexpr (K == Kind::read) {
          const uint4 a = __ldg(src + i);
          xor_into(acc, a);
        }
      }
    __syncthreads();
    if (threadIdx.x == 0) {
      const bool late = kernels::global_timer_ns() - t0 > bound_ns;
      if (late) kernels::st_release_sys(&status[1], 1u);
      done = late || kernels::ld_relaxed_sys(stop) != 0u;
    }
    __syncthreads();
    if (done) break;
  }
  if constexpr (K == Kind::read)
    if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == kSentinel) dst[first] = acc;  // keeps the loads; never in practice
}

const char* name_of(Kind k) { return k == Kind::read ? "read" : k == Kind::write ? "write" : "copy"; }

struct Buffers {
  harness::DeviceBuffer src, dst, sink, smids;
  long long vecs = 0;
  int passes = 1;  // passes over the buffers per kernel
};

// A source and a destination of `bytes` each on the rank's device (the source filled with any
// non-zero data), the sink and the per-block SM ids; `passes` over them per kernel.
Buffers make_buffers(const BenchEnv& env, size_t bytes, int passes) {
  Buffers b;
  b.src = harness::DeviceBuffer(bytes, env.rank);
  b.dst = harness::DeviceBuffer(bytes, env.rank);
  b.sink = harness::DeviceBuffer(sizeof(uint4), env.rank);
  b.smids = harness::DeviceBuffer(static_cast<size_t>(env.sms) * sizeof(unsigned), env.rank);
  b.vecs = static_cast<long long>(bytes / sizeof(uint4));
  b.passes = passes;
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(b.src.data(), 0x5a, bytes, env.stream));  // any data
  return b;
}

std::vector<double> measure(const BenchEnv& env, Buffers& b, Kind kind, int sms, int tpb, std::vector<unsigned>& ids) {
  const Shape s{sms, tpb, 1};
  const auto go = [&] {
    const uint4* src = b.src.as<const uint4>();
    uint4* dst = b.dst.as<uint4>();
    uint4* sink = b.sink.as<uint4>();
    unsigned* smids = b.smids.as<unsigned>();
    const int np = b.passes;
    if (kind == Kind::read) launch(s, env.stream, env.rank, stream_kernel<Kind::read>, src, dst, b.vecs, np, sink, smids);
    if (kind == Kind::write)
      launch(s, env.stream, env.rank, stream_kernel<Kind::write>, src, dst, b.vecs, np, sink, smids);
    if (kind == Kind::copy) launch(s, env.stream, env.rank, stream_kernel<Kind::copy>, src, dst, b.vecs, np, sink, smids);
  };
  constexpr int kWarmup = 1;  // one untimed pass: clocks ramp, pages are touched
  const std::vector<double> us = time_calls(env, kWarmup, env.reps, {}, go);
  ids.assign(static_cast<size_t>(sms), 0u);
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(ids.data(), b.smids.data(), ids.size() * sizeof(unsigned),
                                                  cudaMemcpyDeviceToHost, env.stream));
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
  return us;
}

void add_point(const BenchEnv& env, Buffers& b, Kind kind, const std::string& suffix, int sms, int tpb,
               std::vector<MicrobenchRow>& out) {
  std::vector<unsigned> ids;
  const std::vector<double> us = measure(env, b, kind, sms, tpb, ids);
  const std::string variant = std::string(name_of(kind)) + suffix;
  distinct_sms(ids, sms, ("bandwidth " + variant).c_str());
  const double bytes = double(b.vecs) * sizeof(uint4) * b.passes * (kind == Kind::copy ? 2.0 : 1.0);
  std::vector<double> gbps;
  for (double t : us) gbps.push_back(bytes / (t * 1e3));  // bytes per ns = GB/s
  out.push_back(make_point(PointKey{"bandwidth", variant, sms, tpb, 0, bytes,
                                    kind == Kind::copy ? "bytes read + written" : "bytes", "gbps"},
                           gbps));
}

// The rows bench's hidden sizes and pitch (see the header).
constexpr int kRowHiddens[] = {6784, 6848, 6912, 7168, 8192};
constexpr long long kRowPitchAlignBytes = 4096;  // the padded pitch: a multiple of 4 KB
constexpr int kBf16Bytes = 2;

// One rows point: kind K over the rows of hidden size `hidden` (bf16), packed or padded, at all of the rank's
// SMs; tpb = hidden / 8 (one 16-byte vector per thread), size = bytes moved (row vectors only).
void add_row_point(const BenchEnv& env, Buffers& b, Kind kind, int hidden, bool padded, const std::string& suffix,
                   std::vector<MicrobenchRow>& out) {
  const long long row_bytes = static_cast<long long>(hidden) * kBf16Bytes;
  const long long pitch_bytes =
      padded ? (row_bytes + kRowPitchAlignBytes - 1) / kRowPitchAlignBytes * kRowPitchAlignBytes : row_bytes;
  const int row_vecs = static_cast<int>(row_bytes / static_cast<long long>(sizeof(uint4)));
  const long long pitch_vecs = pitch_bytes / static_cast<long long>(sizeof(uint4));
  const long long rows = b.vecs / pitch_vecs;
  const Shape s{env.sms, row_vecs, 1};
  const auto go = [&] {
    const uint4* src = b.src.as<const uint4>();
    uint4* dst = b.dst.as<uint4>();
    uint4* sink = b.sink.as<uint4>();
    unsigned* smids = b.smids.as<unsigned>();
    if (kind == Kind::read)
      launch(s, env.stream, env.rank, row_stream_kernel<Kind::read>, src, dst, rows, pitch_vecs, sink, smids);
    if (kind == Kind::write)
      launch(s, env.stream, env.rank, row_stream_kernel<Kind::write>, src, dst, rows, pitch_vecs, sink, smids);
  };
  constexpr int kWarmup = 1;
  const std::vector<double> us = time_calls(env, kWarmup, env.reps, {}, go);
  std::vector<unsigned> ids(static_cast<size_t>(env.sms), 0u);
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(ids.data(), b.smids.data(), ids.size() * sizeof(unsigned),
                                                  cudaMemcpyDeviceToHost, env.stream));
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
  const std::string variant = std::string("rows_") + name_of(kind) + (padded ? "_pitch4k" : "") + suffix;
  distinct_sms(ids, env.sms, ("bandwidth " + variant).c_str());
  const double bytes = static_cast<double>(rows) * row_bytes;
  std::vector<double> gbps;
  for (double t : us) gbps.push_back(bytes / (t * 1e3));
  out.push_back(make_point(PointKey{"bandwidth", variant, env.sms, row_vecs, 0, bytes, "bytes", "gbps"}, gbps));
}

void add_row_points(const BenchEnv& env, Buffers& b, Kind kind, const std::string& suffix,
                    std::vector<MicrobenchRow>& out) {
  for (const int hidden : kRowHiddens)
    for (const bool padded : {false, true}) add_row_point(env, b, kind, hidden, padded, suffix, out);
}

// Runs `body` while the first `partners` partner partitions (rank 1's alone for the _busy points, every
// one for the _allbusy points) each stream passes of `kind` over two buffers of `busy_bytes` of their
// own at all of their SMs; throws when that load did not cover it. A partner looks at its stop word once
// per 256 MiB streamed, whatever its buffers' size: polled once per pass over 4 MiB buffers (every ~2
// us, 64 blocks reading host memory), the first run of the L2 variants measured 85-210 GB/s beside it
// for the 2.9-5.7 TB/s alone.
void with_busy_partners(const BenchEnv& env, size_t busy_bytes, size_t partners, Kind kind,
                        const std::function<void()>& body) {
  const int passes_per_poll = static_cast<int>(std::max<size_t>(1, (size_t(256) << 20) / busy_bytes));
  constexpr int kBusyTpb = 1024;
  // The load generator waits on no one; its bound only ends it should the host never set the stop
  // word: far above the few seconds the _busy points take.
  constexpr unsigned long long kBusyBoundNs = 120ull * 1000 * 1000 * 1000;
  partners = std::min(partners, env.partner_streams.size());
  struct Partner {
    harness::DeviceBuffer src, dst;
    harness::MappedPinnedBuffer words;
    cudaStream_t stream;
    int rank;
  };
  std::vector<Partner> load;
  for (size_t k = 0; k < partners; ++k) {
    const int rank = env.partner_ranks[k];
    load.push_back(Partner{harness::DeviceBuffer(busy_bytes, rank), harness::DeviceBuffer(busy_bytes, rank),
                           harness::MappedPinnedBuffer(4 * sizeof(unsigned), rank), env.partner_streams[k], rank});
    Partner& q = load.back();
    ARLAB_CUDA_CHECK_RANK(rank, cudaMemsetAsync(q.src.data(), 1, busy_bytes, q.stream));
    volatile unsigned* host = q.words.as<unsigned>();  // [0] stop, [1] started, [2] bound reached
    host[0] = host[1] = host[2] = 0u;
  }
  const auto stop_all = [&](bool checked) {
    for (Partner& q : load) static_cast<volatile unsigned*>(q.words.as<unsigned>())[0] = 1u;
    for (Partner& q : load) {
      if (checked) {
        ARLAB_CUDA_CHECK_RANK(q.rank, cudaStreamSynchronize(q.stream));
      } else {
        cudaStreamSynchronize(q.stream);  // unwinding: its own error would hide the first one
      }
    }
  };
  // Launched, waited for and run inside one try: should a launch or the wait fail after some partners
  // started, those are stopped (and waited for) before their buffers are freed.
  size_t launched = 0;
  try {
    for (Partner& q : load) {
      unsigned* dev = nullptr;
      ARLAB_CUDA_CHECK_RANK(q.rank, cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), q.words.data(), 0));
      const uint4* src = q.src.as<const uint4>();
      uint4* dst = q.dst.as<uint4>();
      const long long n = static_cast<long long>(busy_bytes / sizeof(uint4));
      const Shape shape{env.partner_sms(), kBusyTpb, 1};
      if (kind == Kind::copy)
        launch(shape, q.stream, q.rank, busy_stream_kernel<Kind::copy>, src, dst, n, passes_per_poll,
               static_cast<const unsigned*>(dev), dev + 1, kBusyBoundNs);
      if (kind == Kind::write)
        launch(shape, q.stream, q.rank, busy_stream_kernel<Kind::write>, src, dst, n, passes_per_poll,
               static_cast<const unsigned*>(dev), dev + 1, kBusyBoundNs);
      if (kind == Kind::read)
        launch(shape, q.stream, q.rank, busy_stream_kernel<Kind::read>, src, dst, n, passes_per_poll,
               static_cast<const unsigned*>(dev), dev + 1, kBusyBoundNs);
      ++launched;
    }
    // Wait (bounded by the spin-wait timeout, at least 10 s for a cold start) until every load runs.
    const auto limit = std::chrono::steady_clock::now() +
                       std::chrono::nanoseconds(std::max<unsigned long long>(env.timeout_ns, 10ull * 1000000000ull));
    for (Partner& q : load) {
      volatile unsigned* host = q.words.as<unsigned>();
      while (host[1] == 0u) {
        if (std::chrono::steady_clock::now() > limit)
          throw CudaError("bandwidth _busy: rank " + std::to_string(q.rank) + "'s load kernel did not start");
        std::this_thread::yield();
      }
    }
    body();
  } catch (...) {
    if (launched > 0) stop_all(false);
    throw;
  }
  stop_all(true);
  for (Partner& q : load)
    if (static_cast<volatile unsigned*>(q.words.as<unsigned>())[2] != 0u)
      throw CudaError("bandwidth _busy: rank " + std::to_string(q.rank) +
                      "'s load ended (bound reached) before the points did");
}

}  // namespace

void bench_bandwidth(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  constexpr size_t kBytes = size_t(512) << 20;  // per buffer: >= 512 MiB, > 10x an H200's L2
  Buffers b = make_buffers(env, kBytes, 1);
  const std::vector<int> sms = env.quick ? sm_counts({1}, env.sms) : sm_counts({1, 2, 4, 8, 16, 32}, env.sms);
  const std::vector<int> tpbs = env.quick ? std::vector<int>{1024} : std::vector<int>{256, 1024};
  for (Kind kind : {Kind::read, Kind::write, Kind::copy})
    for (int tpb : tpbs)
      for (int k : sms) add_point(env, b, kind, "", k, tpb, out);
  constexpr size_t kHbmBusyBytes = size_t(256) << 20;  // the partner's buffers: > 5x L2, it streams HBM too
  if (env.partner_stream())
    with_busy_partners(env, kHbmBusyBytes, 1, Kind::copy, [&] {
      for (Kind kind : {Kind::read, Kind::write, Kind::copy})
        for (int tpb : tpbs) add_point(env, b, kind, "_busy", env.sms, tpb, out);
    });
  // Every partition at once, each streaming the kind rank 0 measures (tpb 1024, the fused kernels' widest
  // blocks; the partners' buffers as the _busy partner's).
  if (env.partner_stream() && !env.quick)
    for (Kind kind : {Kind::read, Kind::write, Kind::copy})
      with_busy_partners(env, kHbmBusyBytes, env.partner_streams.size(), kind,
                         [&] { add_point(env, b, kind, "_allbusy", env.sms, 1024, out); });

  // The fused kernels' row layout (not in --quick): alone, and on the emulated node while every partition
  // streams the same kind.
  if (!env.quick) {
    for (Kind kind : {Kind::read, Kind::write}) add_row_points(env, b, kind, "", out);
    if (env.partner_stream())
      for (Kind kind : {Kind::read, Kind::write})
        with_busy_partners(env, kHbmBusyBytes, env.partner_streams.size(), kind,
                           [&] { add_row_points(env, b, kind, "_allbusy", out); });
  }

  // The same kernels over buffers that stay in L2: 2 x 4 MiB (a copy's src and dst; with the partner's
  // two, 16 MiB of the H200's 50 MiB), 128 passes per kernel, so a kernel moves as many bytes as one
  // pass over the 512 MiB buffers above and its launch stays a small part of its time.
  constexpr size_t kL2Bytes = size_t(4) << 20;
  constexpr int kL2Passes = 128;
  Buffers l2 = make_buffers(env, kL2Bytes, kL2Passes);
  for (Kind kind : {Kind::read, Kind::write, Kind::copy})
    for (int tpb : tpbs) add_point(env, l2, kind, "_l2", env.sms, tpb, out);
  if (env.partner_stream())
    with_busy_partners(env, kL2Bytes, 1, Kind::copy, [&] {
      for (Kind kind : {Kind::read, Kind::write, Kind::copy})
        for (int tpb : tpbs) add_point(env, l2, kind, "_l2_busy", env.sms, tpb, out);
    });
}

}  // namespace arlab::calibrate
