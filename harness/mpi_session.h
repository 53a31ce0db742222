// RAII over MPI for the multi-process node: initializes MPI when nobody has (and then finalizes it
// on destruction, after everything that used it), sets MPI_ERRORS_RETURN on MPI_COMM_WORLD so a
// failing call throws an error naming the call instead of aborting, and offers the few collectives
// the node needs (barrier, all-gathers). Built only with MPI (ARLAB_HAVE_MPI).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace arlab::harness {

struct MpiError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  std::string processor_name() const;

  void barrier() const;
  // Ends every process of the launch (after an error in one process, which the others would
  // otherwise wait for in their next collective).
  [[noreturn]] void abort(int code) const;
  // This process's rank among the processes of its host (ranks with the same processor name).
  int local_rank() const;
  // Every process passes the same count; the result is every process's values, rank 0's first.
  std::vector<double> allgather(const std::vector<double>& mine) const;
  std::vector<uint64_t> allgather_u64(const std::vector<uint64_t>& mine) const;
  // Every process passes exactly `bytes` bytes.
  std::vector<uint8_t> allgather_bytes(const void* mine, size_t bytes) const;
  // Strings of any length up to kMaxGatheredString (longer ones are refused).
  std::vector<std::string> allgather_strings(const std::string& mine) const;

  static constexpr size_t kMaxGatheredString = 256;

 private:
  bool owns_ = false;  // this object called MPI_Init and calls MPI_Finalize
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace arlab::harness
