// The measuring session's core (session/node_session.h).
#include "session/node_session.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "harness/check.h"
#include "harness/cupti_timer.h"
#include "harness/device_query.h"
#include "harness/emulated_node.h"
#ifdef ARLAB_HAVE_MPI
#include "harness/mpi_node.h"
#include "harness/mpi_session.h"
#endif

namespace arlab::session {

#ifdef ARLAB_HAVE_MPI
struct NodeSession::Mpi {
  harness::MpiSession session;  // outlives every node: MPI_Finalize after the IPC mappings are closed
};
#else
struct NodeSession::Mpi {};
#endif

NodeSession::NodeSession(const std::string& command, int device, bool cupti) : command_(command), device_(device) {
  harness::request_device_connections();  // before the first CUDA call
  launch_ = harness::detect_launch(harness::process_env);
  if (harness::is_multi_process(launch_)) {
#ifdef ARLAB_HAVE_MPI
    mpi_ = std::make_unique<Mpi>();
    // A launcher environment (e.g. an sbatch script's SLURM_NTASKS) but a one-process MPI world:
    // the emulated node.
    if (mpi_->session.size() <= 1) mpi_.reset();
#else
    throw std::runtime_error("this process was started by " + launch_.launcher + " as rank " +
                             std::to_string(launch_.world_rank) + " of " + std::to_string(launch_.world_size) +
                             ", but this arlab was built without MPI (no MPI at configure time, or "
                             "-DARLAB_ENABLE_MPI=OFF); rebuild with libopenmpi-dev for the multi-process node");
#endif
  }
  if (!mpi_) harness::require_cuda_devices(command_, device_);
  // CUPTI before any context: activity tracing is best enabled before the context exists.
  if (cupti) {
    try {
      cupti_ = std::make_unique<harness::CuptiKernelTimer>();
    } catch (const std::exception& e) {
      cupti_note_ = std::string("CUPTI unavailable (") + e.what() + "); timing with CUDA events";
    }
  } else {
    cupti_note_ = "CUDA events (--no-cupti)";
  }
}

NodeSession::~NodeSession() = default;

bool NodeSession::multi_process() const { return mpi_ != nullptr; }

bool NodeSession::printer() const {
#ifdef ARLAB_HAVE_MPI
  if (mpi_) return mpi_->session.rank() == 0;
#endif
  return true;
}

int NodeSession::node_ranks(int requested) const {
#ifdef ARLAB_HAVE_MPI
  if (mpi_) return mpi_->session.size();
#endif
  return requested;
}

model::GpuSpec NodeSession::rank_spec(int nranks, int sms_per_rank) const {
#ifdef ARLAB_HAVE_MPI
  if (mpi_) {
    int devices = 0;
    ARLAB_CUDA_CHECK(cudaGetDeviceCount(&devices));
    const int local = launch_.local_rank >= 0 ? launch_.local_rank : mpi_->session.local_rank();
    return harness::query_device(local % std::max(1, devices)).spec;
  }
#endif
  const model::GpuSpec whole = harness::query_device(device_).spec;
  return sms_per_rank > 0 ? model::sm_partition_with_count(whole, sms_per_rank, nranks)
                          : model::sm_partition(whole, nranks);
}

void NodeSession::on_node(harness::NodeOptions nopt, const std::function<void(harness::Node&)>& body) {
  nopt.device = device_;
#ifdef ARLAB_HAVE_MPI
  if (mpi_) {
    const harness::MpiSession& mpi = mpi_->session;
    nopt.nranks = mpi.size();
    const auto end_job = [&mpi, this](const std::exception& e) {
      std::fprintf(stderr, "%s: error on MPI rank %d of %d: %s\n", command_.c_str(), mpi.rank(), mpi.size(), e.what());
      std::fflush(stderr);
      std::fflush(stdout);
      mpi.abort(2);
    };
    std::unique_ptr<harness::MpiNode> node;  // never destroyed on the failure path
    try {
      const int local_rank = launch_.local_rank >= 0 ? launch_.local_rank : mpi.local_rank();
      node = std::make_unique<harness::MpiNode>(nopt, mpi, local_rank);
      body(*node);
    } catch (const std::exception& e) {
      end_job(e);
    }
    return;
  }
#endif
  harness::EmulatedNode node(nopt);
  body(node);
}

}  // namespace arlab::session
