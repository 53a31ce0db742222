// Stand-in for an oracle test (the CUDA toolkit's host headers as an independent check) where the
// header was not found at configure time: says which test and why, and exits 77, which ctest
// reports as "skipped" -- never as passed. ARLAB_ORACLE_TEST and ARLAB_ORACLE_REASON come from
// arlab_oracle_unavailable() in tests/CMakeLists.txt.
#include <cstdio>

int main() {
  std::printf("%s skipped: %s\n", ARLAB_ORACLE_TEST, ARLAB_ORACLE_REASON);
  return 77;
}
