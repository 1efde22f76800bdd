// SPDX-License-Identifier: Apache-2.0
// linksim.models() and linksim.gpus() (docs/python.md#catalogs): the built-in catalogs
// (data/models/models.yaml, data/catalog/gpus.yaml) as lists of dicts, in the library's
// units (parameters, bytes, bytes/s, FLOP/s).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "linksim/catalog.hpp"
#include "linksim/model.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

namespace linksim::python {
namespace {

py::dict catalog_model_dict(const ModelSpec& model) {
  py::dict d;
  d["key"] = model.key;
  d["name"] = model.name;
  d["aliases"] = model.aliases;
  d["layers"] = model.layers;
  d["hidden"] = model.hidden;
  d["heads"] = model.heads;
  d["kv_heads"] = model.kv_heads;
  d["head_dim"] = model.head_dim;
  d["ffn"] = model.ffn;
  d["ffn_type"] = std::string(to_string(model.ffn_type));
  d["vocab"] = model.vocab;
  d["experts"] = model.experts;
  d["topk"] = model.topk;
  d["moe_ffn"] = model.moe_ffn;
  const ParamCounts params = count_params(model);
  d["params"] = params.total;
  d["active_params"] = params.active;
  d["published_params"] = model.published_params;
  d["source"] = model.source;
  return d;
}

py::dict catalog_gpu_dict(const GpuModel& gpu) {
  py::dict d;
  d["key"] = gpu.key;
  d["name"] = gpu.name;
  d["aliases"] = gpu.aliases;
  d["arch"] = gpu.arch;
  d["sm"] = gpu.sm;
  d["multiprocessors"] = gpu.multiprocessors;
  d["nvlink_type"] = gpu.nvlink_type;
  d["nvlink_lanes"] = gpu.nvlink_lanes;
  d["p2p"] = gpu.p2p;
  d["pcie_gen"] = gpu.pcie_gen;
  d["bf16_flops"] = gpu.bf16_flops;
  d["fp8_flops"] = gpu.fp8_flops;
  d["memory_bytes"] = gpu.memory_bytes;
  d["memory_bw_Bps"] = gpu.memory_bw_Bps;
  d["source"] = gpu.source;
  return d;
}

}  // namespace

void bind_catalogs(py::module_& m) {
  m.def("models", [] {
    py::list models;
    for (const ModelSpec& model : ModelCatalog::builtin().models()) {
      models.append(catalog_model_dict(model));
    }
    return models;
  });
  m.def("gpus", [] {
    py::list gpus;
    for (const GpuModel& gpu : Catalog::builtin().gpus()) gpus.append(catalog_gpu_dict(gpu));
    return gpus;
  });
}

}  // namespace linksim::python
