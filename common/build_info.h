// Provenance of this build, recorded in every CSV row and echo (docs/measurement.md, docs/csv.md).
#pragma once

namespace arlab {

// The arlab commit the binary was built from (12 hex digits, "-dirty" when tracked files had
// uncommitted changes, "unknown" outside a git checkout; a probe build's switches after it,
// "+probe-SWITCH", CMake option ARLAB_KERNEL_PROBE). Refreshed at every build.
const char* git_sha();

}  // namespace arlab
