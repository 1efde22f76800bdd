// SPDX-License-Identifier: Apache-2.0
// read_input_file: the kind and size checks every input file passes before it is read.
#include "linksim/input_file.hpp"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "linksim/error.hpp"

namespace linksim {
namespace {

namespace fs = std::filesystem;

std::string kind_name(fs::file_type type) {
  switch (type) {
    case fs::file_type::directory: return "a directory";
    case fs::file_type::block:
    case fs::file_type::character: return "a device";
    case fs::file_type::fifo:
    case fs::file_type::socket: return "a pipe or socket";
    default: return "a special file";
  }
}

std::string mebibytes(std::uintmax_t bytes) {
  return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

}  // namespace

std::string read_input_file(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    throw ConfigError({path, 0, 0}, fmt::format("cannot read file: {}",
                                                ec ? ec.message() : std::strerror(ENOENT)));
  }
  if (!fs::is_regular_file(status)) {
    throw ConfigError({path, 0, 0},
                      fmt::format("expected a regular file, got {}", kind_name(status.type())));
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxInputFileBytes) {
    throw ConfigError({path, 0, 0}, fmt::format("expected a file of at most {}, got {}",
                                                mebibytes(kMaxInputFileBytes), mebibytes(size)));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ConfigError({path, 0, 0}, fmt::format("cannot read file: {}", std::strerror(errno)));
  }
  // Read in chunks up to one byte past the limit: the file may have grown since it was
  // measured, and a size of 0 may be a file whose size the system does not report.
  std::string text;
  text.reserve(static_cast<size_t>(ec ? 0 : size));
  char chunk[65536];
  while (in && text.size() <= kMaxInputFileBytes) {
    in.read(chunk, sizeof chunk);
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (text.size() > kMaxInputFileBytes) {
    throw ConfigError({path, 0, 0}, fmt::format("expected a file of at most {}, got more",
                                                mebibytes(kMaxInputFileBytes)));
  }
  return text;
}

}  // namespace linksim
