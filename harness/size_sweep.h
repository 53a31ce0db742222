// Size sweeps of `arlab run` as nccl-tests users know them (-b / -e / -f): token counts from begin to
// end, multiplied by a factor each step, and the bandwidth figures of one row. Pure C++, CPU-tested.
#pragma once

#include <string>
#include <vector>

namespace arlab::harness {

// begin, begin * factor, ... while <= end (as nccl-tests steps its sizes). Throws InvalidArgument
// naming the option unless 1 <= begin <= end and factor >= 2.
std::vector<int> token_sweep(int begin, int end, int factor);

// nccl-tests' all-reduce figures for one rank's `bytes` moved in `us` microseconds by `nranks` ranks:
// algorithm bandwidth = bytes / time, bus bandwidth = algbw x 2 (N - 1) / N (GB/s, 1e9 bytes/s).
double algbw_gbps(double bytes, double us);
double busbw_gbps(double bytes, double us, int nranks);

}  // namespace arlab::harness
