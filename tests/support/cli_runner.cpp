// SPDX-License-Identifier: Apache-2.0
#include "support/cli_runner.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace linksim::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

CliRun run_linksim(const std::string& args) {
  char err_path[] = "/tmp/linksim_cli_stderr_XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for stderr");
  close(fd);
  const std::string command =
      std::string(LINKSIM_CLI_PATH) + " " + args + " 2>" + std::string(err_path);
  CliRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.out.append(buffer.data(), n);
  const int raw = pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  run.err = slurp(err_path);
  std::remove(err_path);
  return run;
}

}  // namespace linksim::testing
