// The emulated node (docs/nodes.md): N ranks in one process on one GPU, each rank in its own green
// context holding a disjoint SM partition (multiples of 8 SMs on Hopper: 64/32/16/8 per rank for
// N = 2/4/8/16 on 132 SMs), its policy seeing the partition's GpuSpec. Owns the partitions and the
// ranks' workspaces, wires every rank to every peer's workspace (plain device pointers: one
// address space), and provides the node-wide operations: format/re-initialize the workspaces,
// synchronize with a host-side deadline, and turn a device fault word into an error naming rank,
// block and what was awaited (after re-initializing the workspaces, so the node stays usable).
#pragma once

#include <memory>
#include <vector>

#include "common/problem.h"
#include "harness/device_query.h"
#include "harness/driver_api.h"
#include "harness/green_partitions.h"
#include "harness/node.h"
#include "harness/rank_context.h"

namespace arlab::harness {

// Sets CUDA_DEVICE_MAX_CONNECTIONS=32 (unless the user set it) so N ranks' streams get their own
// hardware queues. Effective only before the process's first CUDA call: call it first thing.
void request_device_connections();

class EmulatedNode : public NodeBase {
 public:
  explicit EmulatedNode(const NodeOptions& options);
  ~EmulatedNode() override;
  EmulatedNode(const EmulatedNode&) = delete;
  EmulatedNode& operator=(const EmulatedNode&) = delete;

  int nranks() const override { return static_cast<int>(ranks_.size()); }
  const std::vector<int>& local_ranks() const override { return local_ranks_; }
  const DeviceInfo& device() const override { return device_; }
  const model::GpuSpec& rank_spec() const override { return rank_spec_; }
  int sms_per_rank() const override { return rank_spec_.sm_count; }
  RankContext& rank(int r) override { return *ranks_.at(static_cast<size_t>(r)); }
  const RankContext& rank(int r) const { return *ranks_.at(static_cast<size_t>(r)); }

  // Tokens of `hidden` x dtype one call may have (the workspace capacity).
  long long token_capacity(int hidden, DType dtype) const override;
  // Every rank idle, every workspace back to its initial state for the current dtype (synchronous).
  void reinitialize() override;
  // Waits for every rank's stream (bounded: a hung GPU aborts the process, harness/node_core.h),
  // then checks every fault word: on a fault, re-initializes and throws DeviceTimeout.
  void synchronize() override;

  std::string topology() const override { return "emulated"; }
  std::string describe() const override;
  bool timings_meaningful() const override { return true; }
  int process_index() const override { return 0; }
  std::vector<double> allgather(const std::vector<double>& mine) const override { return mine; }
  std::vector<uint64_t> allgather_u64(const std::vector<uint64_t>& mine) const override { return mine; }

 private:
  DriverApi driver_;
  DeviceInfo device_;
  model::GpuSpec rank_spec_;
  std::vector<GreenPartition> partitions_;
  std::vector<std::unique_ptr<RankContext>> ranks_;  // destroyed before the partitions
  std::vector<int> local_ranks_;
};

}  // namespace arlab::harness
