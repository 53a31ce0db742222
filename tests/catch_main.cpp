// main() for CPU test binaries (Catch2 v2 needs one compiled in; v3 ships Catch2WithMain but we
// use the same runner for both so behaviour is identical).
#define CATCH_CONFIG_RUNNER  // Catch2 v2: compile the runner here (v3 ignores it)
#include "tests/catch.h"

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
