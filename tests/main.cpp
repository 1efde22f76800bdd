// SPDX-License-Identifier: Apache-2.0
// The doctest entry point for linksim_tests.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
