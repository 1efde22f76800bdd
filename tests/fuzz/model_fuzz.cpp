// SPDX-License-Identifier: Apache-2.0
// Model catalog files (data/models/models.yaml, docs/models.md): models whose parameter counts
// are finite and positive, or one positioned refusal. The input is also tried as an inline
// --arch specification.
#include <cmath>

#include "fuzz/fuzz_support.hpp"
#include "linksim/model.hpp"

namespace {

void check_model(const linksim::ModelSpec& model, std::string_view text) {
  const linksim::ParamCounts counts = linksim::count_params(model);
  if (!(std::isfinite(counts.total) && counts.total > 0)) {
    linksim::fuzz::finding("a model without a finite positive parameter count", text);
  }
  if (!std::isfinite(linksim::kv_cache_elements_per_token_per_layer(model))) {
    linksim::fuzz::finding("a model with an infinite KV cache", text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  const std::string_view text = fuzz::as_text(data, size);
  try {
    const ModelCatalog catalog = ModelCatalog::parse(text, "models.yaml");
    for (const ModelSpec& model : catalog.models()) check_model(model, text);
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "models.yaml");
  }
  try {
    check_model(parse_arch(text), text);
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "");
  }
  return 0;
}
