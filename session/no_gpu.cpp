// The measuring entry points of session/session.h in a build without CUDA (no nvcc at configure
// time, or -DARLAB_ENABLE_CUDA=OFF): the commands have checked and echoed their options; these say
// plainly that measuring needs the GPU parts.
#include <stdexcept>
#include <string>

#include "session/session.h"

namespace arlab::session {

namespace {

[[noreturn]] void needs_gpu(const std::string& command) {
  throw std::runtime_error("`" + command + "` needs the GPU parts, and this arlab was built without CUDA (no nvcc at "
                           "configure time, or -DARLAB_ENABLE_CUDA=OFF). Rebuild on a machine with the CUDA toolkit to "
                           "run kernels.");
}

}  // namespace

bool gpu_visible() { return false; }
void run_measurements(const RunPlan&) { needs_gpu("arlab run"); }
void print_kernel_registers() { needs_gpu("arlab run --registers"); }
ExpOutcome run_experiment(const ExpRequest& r) { needs_gpu("arlab exp " + r.name); }
bool run_calibration(const calibrate::CalibrateOptions&) { needs_gpu("arlab calibrate"); }
void run_soak(const SoakRequest&) { needs_gpu("arlab soak"); }

}  // namespace arlab::session
