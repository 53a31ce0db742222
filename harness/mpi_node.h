// The multi-process node (docs/nodes.md, real node): one rank per process under mpirun / srun, rank =
// MPI rank, GPU = local rank % visible devices. Each process allocates its own rank's workspace
// (harness/workspace.h), exports it as a CUDA IPC handle, gathers every peer's handle with MPI and
// maps them (IpcMapping), so the kernels address peers' workspaces directly: over NVLink between
// GPUs, or as a second mapping of the same memory when several processes share one GPU. The
// node-wide operations of harness/node.h are MPI collectives. Several processes on one GPU work
// (the tests use it) but their kernels time-slice without MPS, so timings there are not
// meaningful: timings_meaningful() says so and the topology is "mpi-shared-gpu".
// Teardown: every process drains its GPU, a barrier, every process closes its mappings, a barrier,
// then each frees its own workspace (handles closed before frees) -- after a success only: while a
// failure unwinds, the destructor neither synchronizes nor waits for the others.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/cuda_resources.h"
#include "harness/ipc_mapping.h"
#include "harness/mpi_session.h"
#include "harness/node.h"

namespace arlab::harness {

class MpiNode : public NodeBase {
 public:
  // options.nranks must equal the MPI world size; options.device and options.sms_per_rank do not
  // apply (the GPU is local rank % device count, the whole GPU is the rank's).
  MpiNode(const NodeOptions& options, const MpiSession& mpi, int local_rank);
  ~MpiNode() override;
  MpiNode(const MpiNode&) = delete;
  MpiNode& operator=(const MpiNode&) = delete;

  int nranks() const override { return mpi_.size(); }
  const std::vector<int>& local_ranks() const override { return local_; }
  RankContext& rank(int r) override;
  const DeviceInfo& device() const override { return device_; }
  const model::GpuSpec& rank_spec() const override { return device_.spec; }
  int sms_per_rank() const override { return device_.spec.sm_count; }
  long long token_capacity(int hidden, DType dtype) const override;
  void reinitialize() override;
  // Waits for my rank (bounded: a hung GPU ends the job with MPI_Abort, naming the MPI rank;
  // harness/node_core.h), then checks every rank's fault word (collective). On a fault anywhere
  // every process throws DeviceTimeout at once, without re-initializing the workspaces (unlike the
  // emulated node): under MPI a fault ends the job, and the failure path holds no device
  // synchronisation and no barrier.
  void synchronize() override;
  std::string topology() const override { return processes_per_gpu_ > 1 ? "mpi-shared-gpu" : "mpi"; }
  std::string describe() const override;
  bool timings_meaningful() const override { return processes_per_gpu_ == 1; }
  int process_index() const override { return mpi_.rank(); }
  std::vector<double> allgather(const std::vector<double>& mine) const override { return mpi_.allgather(mine); }
  std::vector<uint64_t> allgather_u64(const std::vector<uint64_t>& mine) const override {
    return mpi_.allgather_u64(mine);
  }

  int processes_per_gpu() const { return processes_per_gpu_; }
  // Made on first use (collective); refused when processes share a GPU (NCCL would refuse them).
  NcclComm& nccl() override;

 private:
  const MpiSession& mpi_;
  std::unique_ptr<NcclComm> nccl_;  // destroyed after the members declared below it (see ~MpiNode)
  DeviceInfo device_;
  std::string bus_id_;
  std::string host_;
  int processes_per_gpu_ = 1;
  std::vector<int> local_;
  Stream stream_;
  std::unique_ptr<RankContext> ctx_;
  std::vector<IpcMapping> peers_;  // index = rank (empty for mine); closed in ~MpiNode before ctx_ frees
};

}  // namespace arlab::harness
