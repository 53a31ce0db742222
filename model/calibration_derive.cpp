// Placeholder until the model owner implements model::derive_calibration (model/calibration_derive.h):
// it lets `arlab calibrate` link and write its microbenchmark CSV, then report that no calibration
// could be derived.
#include "model/calibration_derive.h"

#include "common/problem.h"

namespace arlab::model {

DerivedCalibration derive_calibration(const std::vector<MicrobenchRow>&) {
  throw InvalidArgument("derive_calibration: not built yet");
}

}  // namespace arlab::model
