// Human-readable text of a device fault word (kernels/device_fault.h): who timed out, where, and
// what it was waiting for. Pure C++, unit-tested on the CPU.
#pragma once

#include <string>

#include "kernels/device_fault.h"

namespace arlab::harness {

// e.g. "rank 0, block 3: the one-shot poll waited 20 ms for rank 1's data of token 5 without seeing it"
std::string describe_fault(const kernels::FaultInfo& fault, double timeout_ms, int nranks);

}  // namespace arlab::harness
