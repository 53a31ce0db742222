// The measuring session's core (CUDA builds only; session/session.h is its interface): set up once
// per command, before any CUDA context -- the device connections, the launch environment
// (harness/launch_env.h), CUPTI, and MPI when mpirun / srun started several processes -- then
// opens nodes on demand and runs a command's body on each with the failure handling of its kind:
// on the emulated node an exception propagates (the node's destructors wait for the GPU); on the
// multi-process node a failure anywhere prints the error and ends every process at once (MPI_Abort),
// before the node or anything that would synchronize, free or wait for another process is
// destroyed. The only file with MPI conditional compilation on the measuring path is its .cpp.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "harness/launch_env.h"
#include "harness/node.h"
#include "harness/node_core.h"
#include "model/gpu_spec.h"

namespace arlab::harness {
class CuptiKernelTimer;
}

namespace arlab::session {

class NodeSession {
 public:
  // `command`: "arlab run" (messages). `cupti`: start CUPTI (false: CUDA events only). Throws when
  // no CUDA device is visible (naming `device`), or when several processes were launched and this
  // build has no MPI.
  NodeSession(const std::string& command, int device, bool cupti);
  ~NodeSession();
  NodeSession(const NodeSession&) = delete;
  NodeSession& operator=(const NodeSession&) = delete;

  // Several processes, one rank each (mpirun / srun with more than one process).
  bool multi_process() const;
  // This process prints and writes outputs (process 0 of the launch).
  bool printer() const;
  // Ranks of the node: the launch's process count under MPI, else `requested`.
  int node_ranks(int requested) const;
  // What one rank's policy sees on a node of `nranks`: an equal SM partition of the device on the
  // emulated node, the whole GPU this process takes (local rank % devices) under MPI.
  model::GpuSpec rank_spec(int nranks, int sms_per_rank = 0) const;

  harness::CuptiKernelTimer* cupti() const { return cupti_.get(); }
  // How kernels are timed when CUPTI is not used ("" with CUPTI).
  const std::string& cupti_note() const { return cupti_note_; }

  // Opens the node (nopt.nranks becomes the process count under MPI) and runs `body` on it. Under
  // MPI a failure does not return: it is printed and every process ends (MPI_Abort, exit code 2).
  void on_node(harness::NodeOptions nopt, const std::function<void(harness::Node&)>& body);

 private:
  struct Mpi;
  std::string command_;
  int device_ = 0;
  harness::LaunchEnv launch_;
  std::unique_ptr<harness::CuptiKernelTimer> cupti_;
  std::string cupti_note_;
  std::unique_ptr<Mpi> mpi_;  // several processes only
};

}  // namespace arlab::session
