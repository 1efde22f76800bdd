// SPDX-License-Identifier: Apache-2.0
// linksim.run_scenario and linksim.compare (docs/python.md#run_scenario): a scenario run into
// an output directory as `linksim run` does it (run_to_directory), and real nccl-tests output
// against the prediction as `linksim coll compare --json` prints it.
#include <fmt/core.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <thread>

#include "linksim/error.hpp"
#include "linksim/measured.hpp"
#include "linksim/measured_report.hpp"
#include "linksim/nccl_tests_output.hpp"
#include "linksim/runs.hpp"
#include "linksim/scenario.hpp"
#include "python/bindings.hpp"
#include "python/comm_keywords.hpp"
#include "python/keyword_options.hpp"

namespace py = pybind11;

namespace linksim::python {
namespace {

/// Runs every case of the scenario at `path` (of shard `shard`) into `out` with `jobs` worker
/// threads (0: one per core) and writes the data files `formats` name ("csv", "json",
/// "svg", "html"). The same files `linksim run PATH --out OUT --format ...` writes.
py::dict run_scenario_binding(const std::string& path, const std::string& out, int jobs,
                              const std::vector<std::string>& formats, bool resume,
                              const std::string& shard) {
  if (jobs < 0) throw ConfigError(fmt::format("jobs: expected N >= 1 (or 0: every core), got {}", jobs));
  RunDirectoryOptions options;
  options.jobs = jobs > 0 ? jobs : int(std::max(1u, std::thread::hardware_concurrency()));
  options.shard = parse_shard(shard, "shard");
  options.resume = resume;
  options.write_csv = options.write_json = options.write_svg = options.write_html = false;
  for (const std::string& format : formats) {
    if (format == "csv") options.write_csv = true;
    else if (format == "json") options.write_json = true;
    else if (format == "svg") options.write_svg = true;
    else if (format == "html") options.write_html = true;
    else if (format != "table") {
      throw ConfigError(fmt::format("formats: expected table, csv, json, svg or html, got \"{}\"", format));
    }
  }
  options.version = LINKSIM_VERSION;
  RunDirectoryOutcome outcome;
  std::string out_dir;
  {
    py::gil_scoped_release unlocked;
    const Scenario scenario = load_scenario(path);
    out_dir = out.empty() ? "linksim-out/" + scenario.name : out;
    options.out_dir = out_dir;
    options.command_line = fmt::format("linksim run {} --out {} --shard {}{}", path, out_dir,
                                       shard, resume ? " --resume" : "");
    outcome = run_to_directory(scenario, options);
  }
  py::dict result;
  result["out"] = out_dir;
  result["cases_total"] = outcome.cases_total;
  result["cases_selected"] = outcome.cases_selected;
  result["cases_run"] = outcome.cases_run;
  result["cases_skipped"] = outcome.cases_skipped;
  result["cases_failed"] = outcome.cases_failed;
  result["table"] = outcome.table;
  result["answers"] = outcome.answers;
  return result;
}

/// Every table of `results` (a file name, or nccl-tests output text when it holds a line
/// break) against its prediction on `topo`: `linksim coll compare RESULTS --topo T --json`.
std::string compare_json(const std::string& results, const PyTopology& topo, py::dict kwargs) {
  std::vector<std::string> known = {"gpus", "per_node", "collective", "calibration"};
  const KeywordOptions options(kwargs, "compare", known);
  options.check_known();
  NcclTestsReadOptions read;
  if (const auto collective = options.text_option("collective")) {
    if (!parse_collective(*collective)) {
      std::string choices;
      for (const CollectiveName& name : collective_names()) {
        choices += (choices.empty() ? "" : ", ") + std::string(name.name);
      }
      throw ConfigError(fmt::format("collective: expected one of {}, got \"{}\"", choices, *collective));
    }
    read.collective = *collective;
  }
  const GpuSelection selection = options.gpu_selection();
  const ModelCalibration calibration = comm_options_from(options).calibration;
  const std::shared_ptr<const Topology> topology = topo.topology;
  const bool is_text = results.find('\n') != std::string::npos;
  py::gil_scoped_release unlocked;
  const std::vector<NcclTestsTable> tables =
      is_text ? parse_nccl_tests_outputs(results, "<results text>", read)
              : load_nccl_tests_outputs(results, read);
  std::vector<Comparison> comparisons;
  for (const NcclTestsTable& table : tables) {
    const MeasuredSetup setup = measured_setup(table);
    const std::vector<DeviceId> ranks = measured_ranks(*topology, setup, selection, table.file);
    comparisons.push_back(compare_measurement(*topology, ranks, table, calibration));
  }
  return render_comparisons_json(comparisons);
}

}  // namespace

void bind_scenario(py::module_& m) {
  m.def("run_scenario", &run_scenario_binding, py::arg("path"), py::arg("out"), py::arg("jobs"),
        py::arg("formats"), py::arg("resume"), py::arg("shard"));
  m.def("compare_json", &compare_json, py::arg("results"), py::arg("topology"),
        py::arg("options"));
}

}  // namespace linksim::python
