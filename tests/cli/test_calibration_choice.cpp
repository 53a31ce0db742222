// The one calibration rule (cli/calibration_choice.h) where the GPU is known only once a node opens it:
// `arlab run` / `arlab exp` with --calibration auto carry the choice in the plan
// (session::RunPlan::calibration_for_gpu -> choose_for_gpu), and it takes each GPU's own measured file.
// CPU only: the device name is given here as the node would report it.
#include <string>

#include "cli/calibration_choice.h"
#include "model/calibration.h"
#include "session/run_plan.h"
#include "tests/catch.h"

using namespace arlab;

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
model::Calibration committed(const std::string& name) {
  return model::load_calibration(std::string(ARLAB_SOURCE_DIR) + "/data/calibration/" + name);
}
}  // namespace

TEST_CASE("gpu_family: the GPU's model from a device name or a preset") {
  CHECK(cli::gpu_family("NVIDIA H200") == "h200");
  CHECK(cli::gpu_family("h200_sxm") == "h200");
  CHECK(cli::gpu_family("NVIDIA H100 80GB HBM3") == "h100");
  CHECK(cli::gpu_family("h100_sxm") == "h100");
  CHECK(cli::gpu_family("NVIDIA B200") == "b200");
  CHECK(cli::gpu_family("NVIDIA A100-SXM4-80GB") == "a100");
  CHECK(cli::gpu_family("h20") == "h20");
  CHECK(cli::gpu_family("NVIDIA GeForce RTX 4090").empty());  // no letter-and-digits model word
  CHECK(cli::gpu_family("").empty());
}

TEST_CASE("choose_for_gpu: the node's GPU picks its own measured calibration") {
  const model::Calibration h100_own = committed("h100_emulated.csv");
  const model::Calibration h200_own = committed("h200_emulated.csv");
  REQUIRE(h100_own.launch_overhead_us != h200_own.launch_overhead_us);

  session::RunPlan plan;
  cli::choose_for_gpu(cli::NodeKind::emulated, plan, "NVIDIA H100 80GB HBM3");
  CHECK(contains(plan.calibration_source, "h100_emulated.csv (--calibration auto: the measured calibration of the "
                                          "emulated H100 node)"));
  CHECK(plan.calibration.launch_overhead_us == h100_own.launch_overhead_us);
  CHECK(plan.calibration.round_overhead_ns_per_warp == h100_own.round_overhead_ns_per_warp);

  cli::choose_for_gpu(cli::NodeKind::emulated, plan, "NVIDIA H200");
  CHECK(contains(plan.calibration_source, "h200_emulated.csv"));
  CHECK(plan.calibration.launch_overhead_us == h200_own.launch_overhead_us);

  cli::choose_for_gpu(cli::NodeKind::nvlink, plan, "NVIDIA H200");
  CHECK(contains(plan.calibration_source, "h200_nvlink.csv"));

  // No measured file for the H100's NVLink node, none at all for another GPU: the priors, and why.
  cli::choose_for_gpu(cli::NodeKind::nvlink, plan, "NVIDIA H100 80GB HBM3");
  CHECK(contains(plan.calibration_source, "built-in priors (--calibration auto: no measured calibration of the real "
                                          "H100 NVLink node found: data/calibration/h100_nvlink.csv)"));
  CHECK(plan.calibration.launch_overhead_us == model::default_calibration().launch_overhead_us);
  cli::choose_for_gpu(cli::NodeKind::emulated, plan, "NVIDIA B200");
  CHECK(contains(plan.calibration_source, "no measured calibration of the emulated B200 node found: "
                                          "data/calibration/b200_emulated.csv"));
  CHECK(plan.calibration.launch_overhead_us == model::default_calibration().launch_overhead_us);
  cli::choose_for_gpu(cli::NodeKind::emulated, plan, "NVIDIA GeForce RTX 4090");
  CHECK(contains(plan.calibration_source, "no GPU model such as H200 read from the name; the device is NVIDIA GeForce "
                                          "RTX 4090"));
}
