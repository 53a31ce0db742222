// The seed experiment in a build without CUDA: no GPU can be measured.
#include <stdexcept>

#include "experiments/seed_measure.h"

namespace arlab::seed {

bool gpu_available() { return false; }

SeedRunResult measure_seed(const SeedSweep&, const MeasureOptions&, const std::string&, const std::string&) {
  throw std::runtime_error("arlab was built without CUDA: the seed experiment cannot measure here");
}

}  // namespace arlab::seed
