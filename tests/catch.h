// Catch2 v2/v3 compatibility: arlab builds unchanged against Debian 12's Catch2 2.13 and
// Ubuntu 24.04's Catch2 3.x. Every test file includes this header and nothing else of Catch2.
#pragma once
#if ARLAB_CATCH2_MAJOR >= 3
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
