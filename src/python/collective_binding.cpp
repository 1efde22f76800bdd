// SPDX-License-Identifier: Apache-2.0
// linksim.collective and linksim.explain_collective (docs/python.md#collective): the sweep
// `linksim coll OP --json` prints and the derivation `linksim explain coll OP --json` prints,
// through the same library calls (select_gpus, Communicator, run_sweep, to_collective_report,
// explain_collective) and the same renderers, returned as JSON text for the Python side.
#include <fmt/core.h>
#include <pybind11/pybind11.h>

#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/error_bands.hpp"
#include "linksim/explain.hpp"
#include "linksim/explain_report.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/report.hpp"
#include "python/bindings.hpp"
#include "python/comm_keywords.hpp"
#include "python/keyword_options.hpp"

namespace py = pybind11;

namespace linksim::python {
namespace {

std::vector<std::string> collective_keyword_names() {
  std::vector<std::string> names = {"sizes", "minbytes", "maxbytes", "stepfactor", "stepbytes",
                                    "max_rows", "gpus", "per_node", "dtype", "redop", "root",
                                    "algo", "proto", "mode"};
  for (std::string& name : comm_keyword_names()) names.push_back(std::move(name));
  return names;
}

CollectiveOp collective_op_arg(const std::string& text) {
  if (const std::optional<CollectiveOp> op = parse_collective(text)) return *op;
  std::string names;
  for (const CollectiveName& n : collective_names()) {
    names += (names.empty() ? "" : ", ") + std::string(n.name);
  }
  throw ConfigError(fmt::format("op: expected one of {}, got \"{}\"", names, text));
}

/// sizes=[...], or a sweep minbytes/maxbytes/stepfactor/stepbytes as coll's -b/-e/-f/-i.
std::vector<double> requested_collective_sizes(const KeywordOptions& options) {
  const bool sweep = options.has("minbytes") || options.has("maxbytes");
  if (options.has("sizes")) {
    if (sweep) throw ConfigError("give either sizes or minbytes/maxbytes, not both");
    std::vector<double> sizes = options.size_list_option("sizes");
    if (sizes.empty()) throw ConfigError("sizes: expected at least one size, got none");
    return sizes;
  }
  if (!options.has("minbytes") || !options.has("maxbytes")) {
    throw ConfigError("give a message size: sizes=[...], or a sweep minbytes=, maxbytes= "
                      "[, stepfactor=]");
  }
  SweepSpec spec;
  spec.min_bytes = *options.size_option("minbytes");
  spec.max_bytes = *options.size_option("maxbytes");
  spec.factor = options.real_option("stepfactor").value_or(spec.factor);
  spec.step_bytes = options.size_option("stepbytes").value_or(spec.step_bytes);
  spec.max_rows = options.real_option("max_rows").value_or(spec.max_rows);
  return sweep_sizes(spec);
}

template <typename T>
T collective_choice(std::optional<T> parsed, const std::string& text, const char* key,
                    const std::string& choices) {
  if (!parsed) throw ConfigError(fmt::format("{}: expected one of {}, got \"{}\"", key, choices, text));
  return *parsed;
}

std::string collective_joined_choices(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// An algo= / proto= value (linksim/nccl_lists.hpp), its error naming the keyword.
template <typename T>
T algo_proto_option(T (*read)(std::string_view, NcclLists&), const KeywordOptions& options,
                    const char* key, NcclLists& lists) {
  const std::string text = options.text_option(key).value_or("auto");
  try {
    return read(text, lists);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", key, e.message()));
  }
}

/// The communicator's options: the shared keywords, and the NCCL_ALGO / NCCL_PROTO lists
/// algo= and proto= may give.
CommOptions collective_comm_options(const KeywordOptions& options) {
  CommOptions comm = comm_options_from(options);
  algo_proto_option(&algorithm_or_list, options, "algo", comm.nccl_lists);
  algo_proto_option(&protocol_or_list, options, "proto", comm.nccl_lists);
  return comm;
}

/// The request without its sizes: type, reduction, root, algorithm, protocol and mode.
SweepRequest collective_sweep_options(CollectiveOp op, const KeywordOptions& options) {
  SweepRequest request;
  request.op = op;
  const std::string dtype = options.text_option("dtype").value_or("float");
  request.type = collective_choice(parse_data_type(dtype), dtype, "dtype", data_type_choices());
  const std::string redop = options.text_option("redop").value_or("sum");
  request.redop = collective_choice(parse_reduction_op(redop), redop, "redop",
                                    collective_joined_choices(reduction_op_names()));
  request.root = options.int_option("root").value_or(0);
  NcclLists lists;  // collective_comm_options keeps them; read here for the single choices
  request.algorithm = algo_proto_option(&algorithm_or_list, options, "algo", lists);
  request.protocol = algo_proto_option(&protocol_or_list, options, "proto", lists);
  const std::string mode = options.text_option("mode").value_or("analytic");
  request.mode = collective_choice(parse_sim_mode(mode), mode, "mode",
                                   collective_joined_choices(sim_mode_choices()));
  return request;
}

/// The JSON document `linksim coll OP --json` prints for the same machine and options.
std::string collective_json(const PyTopology& topo, const std::string& op_name, py::dict kwargs) {
  const KeywordOptions options(kwargs, "collective", collective_keyword_names());
  options.check_known();
  const CollectiveOp op = collective_op_arg(op_name);
  SweepRequest request = collective_sweep_options(op, options);
  request.sizes_bytes = requested_collective_sizes(options);
  const GpuSelection selection = options.gpu_selection();
  const CommOptions comm_options = collective_comm_options(options);
  const std::shared_ptr<const Topology> topology = topo.topology;
  py::gil_scoped_release unlocked;
  const Communicator comm(*topology, select_gpus(*topology, selection), comm_options);
  return render_json(to_collective_report(run_sweep(comm, request), *topology));
}

/// `linksim explain coll OP --size S --json`: one size, rounded as coll's row rounds it.
std::string explain_collective_json(const PyTopology& topo, const std::string& op_name,
                                    py::dict kwargs) {
  std::vector<std::string> known = {"size", "gpus", "per_node", "dtype", "redop", "root",
                                    "algo", "proto"};
  for (std::string& name : comm_keyword_names()) known.push_back(std::move(name));
  const KeywordOptions options(kwargs, "explain_collective", std::move(known));
  options.check_known();
  const CollectiveOp op = collective_op_arg(op_name);
  const std::optional<double> requested_bytes = options.size_option("size");
  if (!requested_bytes) {
    throw ConfigError("size: expected one message size such as 8, \"64K\", \"1M\" or \"1G\", none given");
  }
  const SweepRequest request = collective_sweep_options(op, options);
  const GpuSelection selection = options.gpu_selection();
  const CommOptions comm_options = collective_comm_options(options);
  const std::shared_ptr<const Topology> topology = topo.topology;
  py::gil_scoped_release unlocked;
  const Communicator comm(*topology, select_gpus(*topology, selection), comm_options);
  CollectiveQuery query;
  query.op = op;
  query.algorithm = request.algorithm;
  query.protocol = request.protocol;
  query.root = request.root;
  query.size_bytes =
      round_message_size(op, *requested_bytes, request.type, comm.rank_count()).size_bytes;
  return render_explain_json(explain_collective(comm, query), *topology);
}

}  // namespace

void bind_collective(py::module_& m) {
  m.def("collective_json", &collective_json, py::arg("topology"), py::arg("op"),
        py::arg("options"));
  m.def("explain_collective_json", &explain_collective_json, py::arg("topology"), py::arg("op"),
        py::arg("options"));
}

}  // namespace linksim::python
