// What every kind of node (harness/emulated_node.h, harness/mpi_node.h) does the same way, as pure
// C++ (unit-tested on the CPU): its options and their checks, the device spin-wait bound and the
// host deadline beyond it, the bounded host poll of a rank, the fault words turned into one error,
// and which dtype the workspaces are formatted for. The CUDA side of the shared behaviour is
// NodeBase (harness/node.h).
//
// A hang: every device wait is bounded by the timeout, so a rank still busy long after it means a
// bug or a broken GPU. No CUDA call can return then (a free or a synchronize would wait forever),
// so the poll prints which rank hung and ends the process; under mpirun that ends the job.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/problem.h"
#include "kernels/device_fault.h"

namespace arlab::harness {

struct NodeOptions {
  int nranks = 2;
  int device = 0;
  int max_tokens = 1024;    // workspace capacity (tokens of max_hidden elements)
  int max_hidden = 8192;
  int max_elem_bytes = 2;   // 4 to also run fp32
  double timeout_ms = 2000; // bound of every device spin-wait
  int sms_per_rank = 0;     // 0: the largest equal partition (model::sm_partition)
  bool peers = false;       // also the peers' workspace part (peers/peer_layout.h: flashinfer, vllm)
};

// Throws InvalidArgument naming the value: nranks not supported, timeout not > 0.
void check_node_options(const NodeOptions& options);

// Throws InvalidArgument when p does not fit a node of `nranks` ranks built with `options` whose
// workspace holds `capacity` tokens of p's H and dtype.
void check_problem_fits(const Problem& p, int nranks, const NodeOptions& options, long long capacity);

// The spin-wait bound as the kernels take it (FusedParams::timeout_ns, GateParams::timeout_ns).
unsigned long long timeout_ns(double timeout_ms);

// The host gives the device this long beyond its own spin-wait bound before calling it a hang: far
// above any kernel arlab runs (milliseconds), so only a hung GPU reaches it.
constexpr double kHostDeadlineSlackMs = 30000;

// "arlab: fatal: <who> did not finish within ... s although every device wait is bounded by ... ms: ..."
std::string hang_message(const std::string& who, double timeout_ms);

// Calls done() every 50 us until it returns true. Past timeout_ms + kHostDeadlineSlackMs the GPU
// is hung: prints hang_message(who, timeout_ms) to stderr and ends the process with end_process
// (under MPI: MPI_Abort, which ends every process of the job), or std::abort when none is given.
void poll_until_done(const std::function<bool()>& done, double timeout_ms, const std::string& who,
                     const std::function<void()>& end_process = {});

// The first non-zero fault word of `words` (one per rank, rank order), decoded; none when all are 0.
std::optional<kernels::FaultInfo> first_fault(const std::vector<uint64_t>& words);

// The DeviceTimeout text of a fault, once the node has re-initialized every workspace.
std::string fault_message(const kernels::FaultInfo& fault, double timeout_ms, int nranks);

// A fault `arlab run --inject-fault` plants to test the failure paths (a hidden option):
//   skip-kernel-rank=R  rank R never launches its fused kernel, so the other ranks' bounded waits time
//                       out (a device timeout on every process);
//   cuda-error-rank=R   rank R fails with a CUDA error when it enqueues its first call, before the
//                       collective that follows (the other processes then wait in it).
// Either may end in "@call=K": the fault starts with that rank's K-th enqueued call (0-based), e.g.
// in the middle of a timed batch, behind the host hold, with other calls already queued.
struct FaultInjection {
  int skip_kernel_rank = -1;  // -1: none
  int cuda_error_rank = -1;
  long long from_call = 0;    // the rank's first faulty call (count of its enqueued calls)
  bool any() const { return skip_kernel_rank >= 0 || cuda_error_rank >= 0; }
};

// Parses "" (none), "skip-kernel-rank=R[@call=K]" or "cuda-error-rank=R[@call=K]"; throws
// InvalidArgument unless R is a rank in [0, nranks) and K a count in [0, 10^9].
FaultInjection parse_fault_injection(const std::string& text, int nranks);

// The dtype the workspaces hold (their "not arrived" mark is that dtype's -0.0 pattern).
class WorkspaceFormat {
 public:
  // Records `dtype`; true when the workspaces must be (re-)initialized for it: the first format,
  // or a different dtype than the current one.
  bool set(DType dtype) {
    const bool change = !formatted_ || dtype != dtype_;
    dtype_ = dtype;
    formatted_ = true;
    return change;
  }
  DType dtype() const { return dtype_; }

 private:
  DType dtype_ = DType::bf16;
  bool formatted_ = false;
};

}  // namespace arlab::harness
