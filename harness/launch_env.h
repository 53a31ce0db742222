// Where this process sits in a multi-process launch, read from the launcher's environment before
// MPI is initialized: Open MPI's mpirun (OMPI_COMM_WORLD_*), MPICH / Intel MPI / PMI launchers
// (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID), PMIx (PMIX_RANK) and Slurm's srun (SLURM_PROCID,
// SLURM_NTASKS, SLURM_LOCALID). Pure C++ over an injectable lookup, unit-tested on the CPU.
// `arlab run` uses it to decide, before touching CUDA, whether it is one rank of a multi-process
// node (world size > 1) and which GPU it drives (local rank % device count).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace arlab::harness {

struct LaunchEnv {
  std::string launcher;  // "openmpi", "slurm", "pmi", "pmix" or "" (not launched by one)
  int world_rank = 0;
  int world_size = 1;
  int local_rank = 0;    // rank among the processes of this host (-1 when the launcher does not say)
};

// Returns the value of an environment variable, or nothing when it is unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The process environment (getenv).
std::optional<std::string> process_env(const std::string& name);

// Reads the launcher variables, the first complete set in the order Open MPI, Slurm, PMI, PMIx.
// Throws InvalidArgument naming the variable when one is not a non-negative integer, or when the
// rank is not below the size.
LaunchEnv detect_launch(const EnvLookup& env);

// True when this process is one of several launched together.
inline bool is_multi_process(const LaunchEnv& e) { return e.world_size > 1; }

// The GPU a process drives: local rank % device count (throws InvalidArgument for no devices or
// an unknown local rank in a multi-process launch).
int device_for_local_rank(const LaunchEnv& e, int device_count);

}  // namespace arlab::harness
