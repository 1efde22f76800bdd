// SPDX-License-Identifier: Apache-2.0
// `linksim topo import nvidia-smi TOPO_M.txt` and `linksim topo import nccl-xml DUMP.xml`:
// a topology YAML from what a real machine prints, to -o FILE or stdout.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <fstream>
#include <sstream>

#include "cli/command_table.hpp"
#include "linksim/input_file.hpp"
#include "linksim/sysimport.hpp"

namespace linksim::cli {
namespace {

struct ImportArgs {
  std::string input;
  std::string output;
  ImportOptions options;
};

std::string read_text(const std::string& path) { return read_input_file(path); }

void emit(const std::string& yaml, const std::string& output) {
  if (output.empty() || output == "-") {
    fmt::print("{}", yaml);
    return;
  }
  std::ofstream out(output, std::ios::binary);
  if (!out || !(out << yaml)) throw ConfigError({output, 0, 0}, "cannot write file");
}

void add_source(CLI::App& import, const std::string& name, const std::string& help,
                std::function<std::string(const ImportArgs&)> convert) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = import.add_subcommand(name, help);
  cmd->add_option("input", args->input, "the file to import")->required();
  cmd->add_option("-o,--output", args->output, "write the YAML here (default: stdout)");
  cmd->add_option("--gpu", args->options.gpu_model,
                  "catalog GPU model for link speeds (default: generic, stated in comments)");
  cmd->add_option("--name", args->options.name, "topology name (default: the file's stem)");
  cmd->callback([args, convert] { emit(convert(*args), args->output); });
}

const CommandRegistrar kImport{"topo", "import", [](CLI::App& topo) {
  CLI::App* import = topo.add_subcommand("import", "Write a topology YAML from a real machine's "
                                                   "nvidia-smi topo -m or NCCL topology XML");
  import->require_subcommand(1);
  add_source(*import, "nvidia-smi", "from a saved `nvidia-smi topo -m`", [](const ImportArgs& a) {
    return import_nvidia_smi(read_nvidia_smi_topo(a.input), a.options);
  });
  add_source(*import, "nccl-xml", "from an NCCL_TOPO_DUMP_FILE XML", [](const ImportArgs& a) {
    return import_nccl_xml(read_text(a.input), a.input, a.options);
  });
}};

}  // namespace
}  // namespace linksim::cli
