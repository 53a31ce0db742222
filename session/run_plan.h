// What one measuring run does, checked before any device is touched: the problem (a size sweep of
// it), the members of its interleaved group -- policies with the kernel bodies they may run,
// explicit shapes, baselines, each one entry with the label its row carries -- and how to measure
// (timing, inputs, calibration, node options, outputs). `arlab run` builds one from its options
// (cli/cli_run.cpp), `arlab exp` one per case from the experiment's case list; the measuring
// session (session/session.h) runs it. Pure C++: builds and is tested without a GPU.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/implementations.h"
#include "common/problem.h"
#include "harness/node_core.h"
#include "harness/timing_stats.h"
#include "model/calibration.h"
#include "model/explicit_shape.h"
#include "model/policies.h"
#include "reference/fused_reference.h"

namespace arlab::session {

// One --kernel value: the kernel bodies (common/implementations.h) a policy's configuration may
// run. A body name: that body; auto: every kernel body of the table, the model policy choosing
// among them (with the algorithm and the launch shape).
struct KernelChoice {
  std::string name;
  std::vector<Impl> bodies;
  bool automatic() const { return bodies.size() > 1; }
};
// "reference" / "lean" / ... / "auto" -> its choice; throws InvalidArgument naming the text.
KernelChoice parse_kernel_choice(const std::string& text);
// The --kernel list, each value once; throws InvalidArgument for an empty list or a repeated value.
std::vector<KernelChoice> parse_kernel_choices(const std::vector<std::string>& names);

// One member of a group, as planned: what chooses its configuration and the label its rows carry.
struct GroupEntry {
  enum class Kind { policy, explicit_shape, baseline };
  Kind kind = Kind::policy;
  std::string label;                 // "trtllm", "trtllm/lean", "model/auto", "explicit", "unfused"
  model::Policy policy = model::Policy::trtllm;  // Kind::policy (explicit_config: the --tpb shape)
  KernelChoice kernel;               // Kind::policy and Kind::explicit_shape
  model::ExplicitShape shape;        // Kind::explicit_shape, and Kind::policy with explicit_config
  Impl baseline = Impl::unfused;     // Kind::baseline
};

// The group of one problem: every --policy entry (POLICY or POLICY/KERNEL) once per --kernel choice
// unless it names its own kernel, every explicit shape once per --kernel choice, then the baselines.
// Labels: the policy's name when one --kernel value was given, else "policy/kernel"; a POLICY/KERNEL
// entry keeps its own "policy/kernel". `shapes` holds the --policy explicit shape (when that policy
// is listed) first, then the --config shapes. Throws InvalidArgument naming the entry when a policy or
// kernel is unknown, when a choice cannot run the problem (a fixed policy or explicit shape keeps the
// problem's algorithm, so its body must have that algorithm; auto is the model policy's alone), or
// when nothing is measured.
struct GroupRequest {
  std::vector<std::string> policies;  // --policy entries
  std::vector<KernelChoice> kernels = {KernelChoice{"reference", {Impl::reference}}};
  std::vector<model::ExplicitShape> shapes;
  std::vector<Impl> baselines;
};
std::vector<GroupEntry> plan_group(const GroupRequest& request, const Problem& problem);
// True when a member runs a peer library's kernel (flashinfer, vllm): the node then needs the
// peers' workspace part (peers/peer_layout.h).
bool needs_peers(const std::vector<GroupEntry>& entries);

struct RunPlan {
  Problem problem;                  // in a size sweep: the largest size (the workspace and inputs hold it)
  std::vector<int> sweep;           // -b/-e/-f token counts; empty: one run at problem.tokens
  std::vector<GroupEntry> entries;  // the group measured at every size, in order
  bool pdl = false;
  // How to measure.
  harness::TimingOptions timing;
  bool timed = true;                // false: --no-timing (gate only)
  bool check = true;                // false: --no-check
  bool cupti = true;                // false: --no-cupti (CUDA events)
  ref::Distribution distribution = ref::Distribution::normal;
  unsigned long long seed = 1;
  int sets = 0;                     // input sets (0: enough to exceed 2x L2)
  model::Calibration calibration;   // the model policy's and predicted_us'
  std::string calibration_source;   // the file it came from, or "built-in priors"
  // Where --calibration is auto: sets calibration and calibration_source for the GPU the node opened
  // (its device name), called once the node has queried its device (cli/calibration_choice.h: the
  // measured calibration of that GPU's node kind); empty where the calibration was named.
  std::function<void(RunPlan& plan, const std::string& gpu_name)> calibration_for_gpu;
  harness::FaultInjection fault;
  // The node.
  int device = 0;
  int max_tokens = 0;               // workspace capacity (0: the problem's tokens)
  double timeout_ms = 2000;
  int sms_per_rank = 0;
  // Outputs (written by process 0).
  std::string csv;                  // measurement rows appended here ("" : none)
  std::string ratios_csv;           // one ratio row per member against the first ("" : none)
  std::string experiment = "run";   // the rows' experiment column
};

}  // namespace arlab::session
