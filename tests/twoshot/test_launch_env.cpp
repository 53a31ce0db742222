// CPU tests of harness/launch_env.h: which launcher started this process, its rank, world size and
// local rank, and the GPU it drives, from fake environments.
#include <map>
#include <optional>
#include <string>

#include "common/problem.h"
#include "harness/launch_env.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::harness;

namespace {

EnvLookup fake_env(const std::map<std::string, std::string>& vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string error_of(const std::map<std::string, std::string>& vars) {
  try {
    detect_launch(fake_env(vars));
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("no launcher: a single process") {
  const LaunchEnv e = detect_launch(fake_env({{"HOME", "/root"}}));
  CHECK(e.launcher.empty());
  CHECK(e.world_size == 1);
  CHECK(e.world_rank == 0);
  CHECK_FALSE(is_multi_process(e));
}

TEST_CASE("Open MPI's mpirun") {
  const LaunchEnv e = detect_launch(fake_env(
      {{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}));
  CHECK(e.launcher == "openmpi");
  CHECK(e.world_rank == 3);
  CHECK(e.world_size == 8);
  CHECK(e.local_rank == 1);
  CHECK(is_multi_process(e));
  CHECK(device_for_local_rank(e, 8) == 1);
  CHECK(device_for_local_rank(e, 1) == 0);  // several processes on one GPU
}

TEST_CASE("Slurm's srun, and Open MPI taking precedence when both are set") {
  const std::map<std::string, std::string> slurm = {
      {"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "16"}, {"SLURM_LOCALID", "5"}};
  const LaunchEnv e = detect_launch(fake_env(slurm));
  CHECK(e.launcher == "slurm");
  CHECK(e.world_rank == 5);
  CHECK(e.world_size == 16);
  CHECK(device_for_local_rank(e, 4) == 1);

  std::map<std::string, std::string> both = slurm;
  both["OMPI_COMM_WORLD_RANK"] = "0";
  both["OMPI_COMM_WORLD_SIZE"] = "2";
  both["OMPI_COMM_WORLD_LOCAL_RANK"] = "0";
  CHECK(detect_launch(fake_env(both)).launcher == "openmpi");
}

TEST_CASE("PMI launchers (MPICH hydra) and an unknown local rank") {
  const LaunchEnv e = detect_launch(fake_env({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}));
  CHECK(e.launcher == "pmi");
  CHECK(e.world_rank == 1);
  CHECK(e.local_rank == -1);
  bool refused = false;
  try {
    device_for_local_rank(e, 2);
  } catch (const InvalidArgument& ex) {
    refused = std::string(ex.what()).find("local rank") != std::string::npos;
  }
  CHECK(refused);
}

TEST_CASE("malformed launcher variables are refused, naming the variable") {
  CHECK(error_of({{"OMPI_COMM_WORLD_RANK", "x1"}, {"OMPI_COMM_WORLD_SIZE", "2"}}).find("OMPI_COMM_WORLD_RANK") !=
        std::string::npos);
  CHECK(error_of({{"SLURM_PROCID", "4"}, {"SLURM_NTASKS", "4"}}).find("is not below SLURM_NTASKS = 4") !=
        std::string::npos);
  CHECK(error_of({{"PMI_RANK", "0"}, {"PMI_SIZE", "-2"}}).find("PMI_SIZE") != std::string::npos);
}

TEST_CASE("no visible device is refused") {
  LaunchEnv e;
  e.launcher = "openmpi";
  e.world_size = 2;
  bool refused = false;
  try {
    device_for_local_rank(e, 0);
  } catch (const InvalidArgument& ex) {
    refused = std::string(ex.what()).find("no CUDA device") != std::string::npos;
  }
  CHECK(refused);
}
