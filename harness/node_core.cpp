// Implementation of harness/node_core.h.
#include "harness/node_core.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "harness/fault_text.h"

namespace arlab::harness {

namespace {
constexpr double kNsPerMs = 1e6;
constexpr double kMsPerS = 1e3;
// How often the host looks at a busy rank: short against the kernels' microseconds-to-milliseconds,
// long enough not to keep a CPU core busy.
constexpr auto kHostPollInterval = std::chrono::microseconds(50);
}  // namespace

void check_node_options(const NodeOptions& o) {
  if (!is_supported_nranks(o.nranks))
    throw InvalidArgument("nranks = " + std::to_string(o.nranks) + " is not supported (expected 2, 4, 8 or 16)");
  if (!(o.timeout_ms > 0)) throw InvalidArgument("timeout = " + std::to_string(o.timeout_ms) + " ms must be > 0");
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

unsigned long long timeout_ns(double timeout_ms) { return static_cast<unsigned long long>(timeout_ms * kNsPerMs); }

std::string hang_message(const std::string& who, double timeout_ms) {
  std::ostringstream os;
  os << "arlab: fatal: " << who << " did not finish within " << (timeout_ms + kHostDeadlineSlackMs) / kMsPerS
     << " s although every device wait is bounded by " << timeout_ms
     << " ms: the GPU is hung; aborting (no CUDA call, not even a free, could return)";
  return os.str();
}

void poll_until_done(const std::function<bool()>& done, double timeout_ms, const std::string& who,
                     const std::function<void()>& end_process) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long long>(timeout_ms + kHostDeadlineSlackMs));
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "%s\n", hang_message(who, timeout_ms).c_str());
      std::fflush(stderr);
      if (end_process) end_process();
      std::abort();  // without an end_process, or should it return
    }
    std::this_thread::sleep_for(kHostPollInterval);
  }
}

FaultInjection parse_fault_injection(const std::string& text, int nranks) {
  FaultInjection f;
  if (text.empty()) return f;
  const std::string expected = " (expected skip-kernel-rank=R or cuda-error-rank=R, R in [0, " +
                               std::to_string(nranks) + "), optionally followed by @call=K, K in [0, 1e9])";
  const size_t at = text.find('@');
  const std::string fault = text.substr(0, at);
  if (at != std::string::npos) {
    const std::string when = text.substr(at + 1);
    const std::string count = when.rfind("call=", 0) == 0 ? when.substr(5) : "";
    if (count.empty() || count.size() > 10 || count.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(count) > 1000000000LL)
      throw InvalidArgument("--inject-fault '" + text + "': '" + when + "' is not call=K" + expected);
    f.from_call = std::stoll(count);
  }
  const size_t eq = fault.find('=');
  const std::string kind = fault.substr(0, eq);
  if (eq == std::string::npos || (kind != "skip-kernel-rank" && kind != "cuda-error-rank"))
    throw InvalidArgument("--inject-fault '" + text + "' is not a known fault" + expected);
  const std::string digits = fault.substr(eq + 1);
  if (digits.empty() || digits.size() > 2 || digits.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(digits) >= nranks)
    throw InvalidArgument("--inject-fault '" + text + "': rank '" + digits + "' is not a rank of this node" + expected);
  (kind == "skip-kernel-rank" ? f.skip_kernel_rank : f.cuda_error_rank) = std::stoi(digits);
  return f;
}

std::optional<kernels::FaultInfo> first_fault(const std::vector<uint64_t>& words) {
  for (uint64_t w : words)
    if (w != 0) return kernels::decode_fault(w);
  return std::nullopt;
}

std::string fault_message(const kernels::FaultInfo& fault, double timeout_ms, int nranks) {
  return describe_fault(fault, timeout_ms, nranks) + "; the workspaces of all ranks were re-initialized";
}

}  // namespace arlab::harness
