// A node of N ranks as the runner, the timing code and `arlab run` see it, whatever hosts the
// ranks: the emulated node (all N ranks in this process on one GPU, harness/emulated_node.h) or the
// multi-process node (one rank per process under mpirun/srun, workspaces shared through CUDA IPC,
// harness/mpi_node.h). This process drives local_ranks() only; the node-wide operations
// (re-initialize, synchronize with fault check, gather figures) are collective over all processes
// of the node, so every process calls them in the same order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.h"
#include "harness/check.h"
#include "harness/device_query.h"
#include "harness/node_core.h"
#include "harness/rank_context.h"
#include "model/gpu_spec.h"

namespace arlab::harness {

class NcclComm;

class Node {
 public:
  virtual ~Node() = default;

  virtual int nranks() const = 0;
  // Ranks this process drives, ascending (all of them on the emulated node, one under MPI).
  virtual const std::vector<int>& local_ranks() const = 0;
  virtual RankContext& rank(int r) = 0;  // r must be a local rank
  virtual const DeviceInfo& device() const = 0;
  virtual const model::GpuSpec& rank_spec() const = 0;  // what each rank's policy sees
  virtual int sms_per_rank() const = 0;
  virtual unsigned long long timeout_ns() const = 0;
  virtual double timeout_ms() const = 0;
  virtual void set_timeout_ms(double ms) = 0;

  // Tokens of `hidden` x dtype one call may have (the workspace capacity).
  virtual long long token_capacity(int hidden, DType dtype) const = 0;
  // Throws InvalidArgument when p does not fit this node.
  virtual void check_fits(const Problem& p) const = 0;

  // Collective. Re-initializes every workspace for `dtype` when it currently holds another one.
  virtual void format(DType dtype) = 0;
  // Collective. Every rank idle, every workspace back to its initial state.
  virtual void reinitialize() = 0;
  // Collective. Waits for the local ranks (bounded), then checks every rank's fault word: on a
  // fault anywhere, throws DeviceTimeout (in every process) -- after re-initializing the workspaces
  // on the emulated node, which stays usable; without on the MPI node, whose fault ends the job.
  virtual void synchronize() = 0;

  // CSV topology: "emulated", "mpi", or "mpi-shared-gpu" (several processes time-slice one GPU).
  virtual std::string topology() const = 0;
  // One line for the configuration echo: how ranks, processes and GPUs are arranged.
  virtual std::string describe() const = 0;
  // False when kernel timings do not measure the kernels (processes time-slicing one GPU).
  virtual bool timings_meaningful() const = 0;
  // This process's index among the node's processes (0 on the emulated node): the one that
  // prints summaries and writes CSV rows is process 0.
  virtual int process_index() const = 0;

  // Collective. Every process passes the same number of values; returns all processes' values,
  // process 0's first (the identity on a single-process node).
  virtual std::vector<double> allgather(const std::vector<double>& mine) const = 0;
  virtual std::vector<uint64_t> allgather_u64(const std::vector<uint64_t>& mine) const = 0;

  // The NCCL communicator of this process's rank, made on first use: collective then (every
  // process calls it at the same point). Throws InvalidArgument where NCCL cannot run: the emulated
  // node (NCCL refuses two ranks on one GPU) or a build without NCCL.
  virtual NcclComm& nccl() = 0;
};

// What every kind of node implements the same way (the pure parts live in harness/node_core.h):
// the checked options, the spin-wait bound, the fit check, formatting only on a dtype change, and
// turning the ranks' fault words into one DeviceTimeout after re-initializing every workspace.
class NodeBase : public Node {
 public:
  // Throws InvalidArgument naming the value (check_node_options).
  explicit NodeBase(const NodeOptions& options) : options_(options) { check_node_options(options_); }

  const NodeOptions& options() const { return options_; }
  unsigned long long timeout_ns() const override { return harness::timeout_ns(options_.timeout_ms); }
  double timeout_ms() const override { return options_.timeout_ms; }
  void set_timeout_ms(double ms) override {
    if (!(ms > 0)) throw InvalidArgument("timeout = " + std::to_string(ms) + " ms must be > 0");
    options_.timeout_ms = ms;
  }
  // Throws InvalidArgument when p does not fit this node: nranks differs, tokens above the
  // capacity, fp32 on a 2-byte workspace.
  void check_fits(const Problem& p) const override {
    check_problem_fits(p, nranks(), options_, token_capacity(p.hidden, p.dtype));
  }
  void format(DType dtype) override {
    if (format_.set(dtype)) reinitialize();
  }
  NcclComm& nccl() override {
    throw InvalidArgument("the nccl baseline needs a real node: one GPU per rank, one process per rank under mpirun "
                          "(NCCL refuses two ranks on one GPU); on the emulated node use --baseline unfused");
  }

 protected:
  // Collective. `words` = every rank's fault word, rank order (read once the local ranks are idle).
  // On a fault anywhere: re-initializes every workspace, then throws DeviceTimeout naming it.
  void raise_first_fault(const std::vector<uint64_t>& words) {
    const std::optional<kernels::FaultInfo> fault = first_fault(words);
    if (!fault) return;
    reinitialize();
    throw DeviceTimeout(fault_message(*fault, options_.timeout_ms, nranks()), *fault);
  }

  NodeOptions options_;
  WorkspaceFormat format_;
};

}  // namespace arlab::harness
