// Implementation of harness/mpi_session.h.
#include "harness/mpi_session.h"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace arlab::harness {
namespace {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw MpiError(std::string(call) + " failed: " + std::string(text, static_cast<size_t>(len)) + " (code " +
                 std::to_string(code) + ")");
}

#define ARLAB_MPI_CHECK(call) check_mpi((call), #call)

}  // namespace

MpiSession::MpiSession() {
  int initialized = 0;
  ARLAB_MPI_CHECK(MPI_Initialized(&initialized));
  if (!initialized) {
    int provided = 0;
    // Only the main thread calls MPI (FUNNELED); nothing here needs more.
    ARLAB_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
    owns_ = true;
  }
  ARLAB_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  ARLAB_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  ARLAB_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
}

MpiSession::~MpiSession() {
  if (!owns_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::string MpiSession::processor_name() const {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  ARLAB_MPI_CHECK(MPI_Get_processor_name(name, &len));
  return std::string(name, static_cast<size_t>(len));
}

void MpiSession::barrier() const { ARLAB_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); }

void MpiSession::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return; this only satisfies [[noreturn]]
}

int MpiSession::local_rank() const {
  const std::vector<std::string> names = allgather_strings(processor_name());
  int local = 0;
  for (int r = 0; r < rank_; ++r) local += names[static_cast<size_t>(r)] == names[static_cast<size_t>(rank_)] ? 1 : 0;
  return local;
}

std::vector<double> MpiSession::allgather(const std::vector<double>& mine) const {
  std::vector<double> all(mine.size() * static_cast<size_t>(size_));
  ARLAB_MPI_CHECK(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                                static_cast<int>(mine.size()), MPI_DOUBLE, MPI_COMM_WORLD));
  return all;
}

std::vector<uint64_t> MpiSession::allgather_u64(const std::vector<uint64_t>& mine) const {
  std::vector<uint64_t> all(mine.size() * static_cast<size_t>(size_));
  ARLAB_MPI_CHECK(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_UINT64_T, all.data(),
                                static_cast<int>(mine.size()), MPI_UINT64_T, MPI_COMM_WORLD));
  return all;
}

std::vector<uint8_t> MpiSession::allgather_bytes(const void* mine, size_t bytes) const {
  std::vector<uint8_t> all(bytes * static_cast<size_t>(size_));
  ARLAB_MPI_CHECK(MPI_Allgather(mine, static_cast<int>(bytes), MPI_BYTE, all.data(), static_cast<int>(bytes), MPI_BYTE,
                                MPI_COMM_WORLD));
  return all;
}

std::vector<std::string> MpiSession::allgather_strings(const std::string& mine) const {
  if (mine.size() >= kMaxGatheredString)
    throw MpiError("string of " + std::to_string(mine.size()) + " bytes to gather exceeds the limit of " +
                   std::to_string(kMaxGatheredString - 1));
  char buf[kMaxGatheredString] = {};
  std::memcpy(buf, mine.data(), mine.size());
  const std::vector<uint8_t> all = allgather_bytes(buf, kMaxGatheredString);
  std::vector<std::string> out;
  for (int p = 0; p < size_; ++p) out.emplace_back(reinterpret_cast<const char*>(&all[p * kMaxGatheredString]));
  return out;
}

}  // namespace arlab::harness
