// Implementation of harness/mpi_node.h.
#include "harness/mpi_node.h"

#include <cstddef>
#include <cstring>
#include <exception>
#include <optional>
#include <sstream>

#include "harness/check.h"
#include "harness/fault_text.h"
#include "harness/nccl_comm.h"

namespace arlab::harness {
namespace {

constexpr int kPciBusIdChars = 32;
// Exit code of every process when one rank's GPU is hung (the job is ended with MPI_Abort); 3, not
// the 2 of an ordinary error, so scripts can tell the two apart.
constexpr int kHungGpuExitCode = 3;  // "0000:00:00.0" plus room (cudaDeviceGetPCIBusId wants >= 13)

// The options an MPI node needs beyond every node's (NodeBase checks those).
NodeOptions checked(const NodeOptions& o, const MpiSession& mpi) {
  if (o.nranks != mpi.size())
    throw InvalidArgument("--ranks = " + std::to_string(o.nranks) + " but the MPI launch has " +
                          std::to_string(mpi.size()) + " processes (one rank per process: mpirun -np " +
                          std::to_string(o.nranks) + ")");
  if (o.sms_per_rank != 0)
    throw InvalidArgument("--sms-per-rank = " + std::to_string(o.sms_per_rank) +
                          " applies to the emulated node only (a process rank owns its whole GPU)");
  return o;
}

}  // namespace

MpiNode::MpiNode(const NodeOptions& options, const MpiSession& mpi, int local_rank)
    : NodeBase(checked(options, mpi)), mpi_(mpi) {
  const int devices = require_cuda_devices("MPI rank " + std::to_string(mpi.rank()), -1);
  options_.device = local_rank % devices;
  ARLAB_CUDA_CHECK_RANK(mpi.rank(), cudaSetDevice(options_.device));
  ARLAB_CUDA_CHECK_RANK(mpi.rank(), cudaFree(nullptr));  // create the context
  device_ = query_device(options_.device);
  char bus[kPciBusIdChars] = {};
  ARLAB_CUDA_CHECK_RANK(mpi.rank(), cudaDeviceGetPCIBusId(bus, kPciBusIdChars, options_.device));
  bus_id_ = bus;
  host_ = mpi.processor_name();
  // Processes that drive the same physical GPU: same host and PCI bus id.
  const std::vector<std::string> where = mpi.allgather_strings(host_ + "|" + bus_id_);
  processes_per_gpu_ = 0;
  for (const std::string& w : where) processes_per_gpu_ += w == where[static_cast<size_t>(mpi.rank())] ? 1 : 0;

  local_ = {mpi.rank()};
  stream_ = make_stream();
  const WorkspaceShape shape{options_.max_tokens, options_.max_hidden, options_.nranks, options_.max_elem_bytes,
                             options_.peers};
  ctx_ = std::make_unique<RankContext>(mpi.rank(), options_.nranks, stream_.get(), device_.spec, shape);

  // Exchange the workspaces' IPC handles and map every peer's.
  const cudaIpcMemHandle_t mine = export_ipc_handle(ctx_->workspace().base(), mpi.rank());
  const std::vector<uint8_t> all = mpi.allgather_bytes(&mine, sizeof(mine));
  peers_.resize(static_cast<size_t>(mpi.size()));
  std::vector<void*> bases(static_cast<size_t>(mpi.size()), nullptr);
  for (int r = 0; r < mpi.size(); ++r) {
    if (r == mpi.rank()) {
      bases[static_cast<size_t>(r)] = ctx_->workspace().base();
      continue;
    }
    cudaIpcMemHandle_t h{};
    std::memcpy(&h, &all[static_cast<size_t>(r) * sizeof(h)], sizeof(h));
    peers_[static_cast<size_t>(r)] = IpcMapping(h, r);
    bases[static_cast<size_t>(r)] = peers_[static_cast<size_t>(r)].get();
  }
  ctx_->connect(bases);
  mpi.barrier();  // every process has mapped every workspace
}

MpiNode::~MpiNode() {
  // While an exception unwinds (a failure), the other processes are not coming to a barrier and
  // the GPU may be stuck: touch neither. `arlab run` ends the job before this can happen; this
  // guards any other user. The members still free what they hold.
  if (std::uncaught_exceptions() > 0) return;
  // Drain my GPU, wait until nobody uses any workspace, close my mappings, wait until everybody
  // closed theirs; then the members free my workspace and stream.
  try {
    cudaDeviceSynchronize();
    nccl_.reset();  // no NCCL operation is in flight: my GPU is idle
    mpi_.barrier();
    peers_.clear();
    mpi_.barrier();
  } catch (...) {
    // Teardown after a failed collective: nothing more can be coordinated; close what we hold.
    peers_.clear();
  }
}

NcclComm& MpiNode::nccl() {
  if (processes_per_gpu_ > 1)
    throw InvalidArgument("the nccl baseline needs one GPU per rank, and " + std::to_string(processes_per_gpu_) +
                          " processes share each GPU here (NCCL refuses two ranks on one GPU)");
  if (!nccl_) nccl_ = make_nccl_comm(mpi_, device_.ordinal);
  return *nccl_;
}

RankContext& MpiNode::rank(int r) {
  if (r != mpi_.rank())
    throw InvalidArgument("rank " + std::to_string(r) + " is not driven by this process (it drives rank " +
                          std::to_string(mpi_.rank()) + ")");
  return *ctx_;
}

long long MpiNode::token_capacity(int hidden, DType dtype) const {
  return ctx_->workspace().token_capacity(hidden, dtype);
}

void MpiNode::reinitialize() {
  ARLAB_CUDA_CHECK_RANK(mpi_.rank(), cudaDeviceSynchronize());
  mpi_.barrier();  // no kernel runs anywhere: nobody touches a workspace while it is reset
  ctx_->workspace().initialize(format_.dtype(), ctx_->stream());
  ARLAB_CUDA_CHECK_RANK(mpi_.rank(), cudaStreamSynchronize(ctx_->stream()));
  mpi_.barrier();  // every workspace is reset before anybody launches again
}

void MpiNode::synchronize() {
  poll_until_done([this] { return ctx_->finished(); }, options_.timeout_ms,
                  "MPI rank " + std::to_string(mpi_.rank()) + " of " + std::to_string(nranks()) + " (host " + host_ +
                      ", GPU " + std::to_string(options_.device) + " " + bus_id_ + ")",
                  [this] { mpi_.abort(kHungGpuExitCode); });
  // Every process gathers the same words, so all of them throw (or none): no re-initialization,
  // whose device synchronisation and barriers have no place on a failure path (the job ends).
  const std::optional<kernels::FaultInfo> fault = first_fault(mpi_.allgather_u64({ctx_->read_fault_word()}));
  if (fault)
    throw DeviceTimeout(describe_fault(*fault, options_.timeout_ms, nranks()) +
                            "; under MPI a fault ends the job (the workspaces are not re-initialized)",
                        *fault);
}

std::string MpiNode::describe() const {
  std::ostringstream os;
  os << "mpi, rank " << mpi_.rank() << " of " << nranks() << " (one process per rank), host " << host_ << ", GPU "
     << options_.device << " (" << bus_id_ << "), " << processes_per_gpu_ << " process(es) on this GPU";
  if (processes_per_gpu_ > 1)
    os << " -- TIMINGS ARE NOT MEANINGFUL: without MPS the processes' kernels time-slice the GPU "
          "(milliseconds per round); this mode checks correctness only";
  return os.str();
}

}  // namespace arlab::harness
