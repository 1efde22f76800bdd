// SPDX-License-Identifier: Apache-2.0
// `topo verify` internals. The contract is in include/linksim/sysimport.hpp (implied_matrix,
// compare_matrices, VerifyReport, render_matrix); this header only gathers what verify uses.
#pragma once

#include "linksim/routing.hpp"
#include "linksim/sysimport.hpp"
