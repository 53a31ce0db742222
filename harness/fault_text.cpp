// Implementation of harness/fault_text.h.
#include "harness/fault_text.h"

#include <sstream>

namespace arlab::harness {

std::string describe_fault(const kernels::FaultInfo& f, double timeout_ms, int nranks) {
  std::ostringstream os;
  switch (f.kind) {
    case kernels::WaitKind::peer_data:
      os << "rank " << f.rank << ", block " << f.block << ": the one-shot poll waited " << timeout_ms
         << " ms for rank " << f.peer << "'s data of token " << f.token
         << " without seeing it (that rank did not run its part of the call)";
      break;
    case kernels::WaitKind::gate:
      os << "rank " << f.rank << ": the timing gate waited " << timeout_ms << " ms and saw only " << f.peer << " of "
         << nranks << " ranks arrive";
      break;
    case kernels::WaitKind::barrier:
      os << "rank " << f.rank << ", block " << f.block << ": the two-shot barrier " << f.token << " waited "
         << timeout_ms << " ms for block " << f.block << " of rank " << f.peer
         << " without seeing it arrive (that rank did not run its part of the call, or not all blocks were resident)";
      break;
    case kernels::WaitKind::host_hold:
      os << "rank " << f.rank << ": the timing batch's host hold waited " << timeout_ms
         << " ms for the host to release it (the host thread stalled or failed while enqueueing the batch)";
      break;
    case kernels::WaitKind::cluster_total:
      os << "rank " << f.rank << ", block " << f.block << ": the lean kernel's RMSNorm waited " << timeout_ms
         << " ms for the partial sum of token " << f.token << " from block " << f.peer
         << " of its cluster without seeing it (that block stopped before its reduction)";
      break;
    case kernels::WaitKind::none:
    default:
      os << "unknown fault word (kind " << static_cast<unsigned>(f.kind) << ", rank " << f.rank << ", block " << f.block
         << ")";
      break;
  }
  return os.str();
}

}  // namespace arlab::harness
