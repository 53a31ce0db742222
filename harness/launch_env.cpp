// Implementation of harness/launch_env.h.
#include "harness/launch_env.h"

#include <cstdlib>

#include "common/problem.h"

namespace arlab::harness {
namespace {

int parse_count(const std::string& name, const std::string& value) {
  size_t used = 0;
  long v = -1;
  try {
    v = std::stol(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || v < 0 || v > (1L << 30))
    throw InvalidArgument("environment variable " + name + " = '" + value + "' is not a non-negative integer");
  return static_cast<int>(v);
}

struct LauncherVars {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* local_rank;  // may be absent
};

// Launchers in the order they are tried (Open MPI first: under `srun --mpi=pmix mpirun` both sets
// exist and Open MPI's describe this process).
constexpr LauncherVars kLaunchers[] = {
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
    {"pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"pmix", "PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK"},
};

}  // namespace

std::optional<std::string> process_env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

LaunchEnv detect_launch(const EnvLookup& env) {
  for (const LauncherVars& l : kLaunchers) {
    const auto rank = env(l.rank), size = env(l.size);
    if (!rank || !size) continue;
    LaunchEnv e;
    e.launcher = l.launcher;
    e.world_rank = parse_count(l.rank, *rank);
    e.world_size = parse_count(l.size, *size);
    if (e.world_size < 1) throw InvalidArgument(std::string(l.size) + " = 0: a launch has at least one process");
    if (e.world_rank >= e.world_size)
      throw InvalidArgument(std::string(l.rank) + " = " + *rank + " is not below " + l.size + " = " + *size);
    const auto local = env(l.local_rank);
    e.local_rank = local ? parse_count(l.local_rank, *local) : (e.world_size == 1 ? 0 : -1);
    return e;
  }
  return LaunchEnv{};
}

int device_for_local_rank(const LaunchEnv& e, int device_count) {
  if (device_count < 1)
    throw InvalidArgument("no CUDA device visible to process " + std::to_string(e.world_rank) + " of " +
                          std::to_string(e.world_size));
  if (e.local_rank < 0)
    throw InvalidArgument("the " + e.launcher + " launcher does not say this process's local rank (rank " +
                          std::to_string(e.world_rank) + "), so its GPU cannot be chosen; launch with mpirun or srun");
  return e.local_rank % device_count;
}

}  // namespace arlab::harness
