// Catch2 v2/v3 compatibility: arlab builds unchanged against Debian 12's Catch2 2.13 and
// Ubuntu 24.04's Catch2 3.x. Every test file includes this header and nothing else of Catch2, and
// spells things the v2 way; for v3 this header supplies the two v2 names the tests use.
#pragma once
#if ARLAB_CATCH2_MAJOR >= 3
#include <catch2/catch_all.hpp>

#include <string>

using Catch::Approx;  // v2 declared Approx at global scope
namespace Catch {
// v2's substring matcher Catch::Contains is Catch::Matchers::ContainsSubstring in v3.
inline Matchers::StringContainsMatcher Contains(const std::string& s, CaseSensitive cs = CaseSensitive::Yes) {
  return Matchers::ContainsSubstring(s, cs);
}
}  // namespace Catch
#else
#include <catch2/catch.hpp>
#endif
