// SPDX-License-Identifier: Apache-2.0
// NCCL's header is written by src/debug.cc (ncclDebugLog): "%s:%d:%d [%d] NCCL INFO " with
// the host name, pid, thread id and CUDA device; a WARN line puts "file.cc:line " between the
// device and "NCCL WARN". Launchers put their own tags in front: Open MPI's --tag-output
// "[job,rank]<stdout>:", Horovod's "[rank]<stdout>:", srun --label's "rank: ", torchrun's
// "[rankN]:" and "[defaultN]:".
#include "sysimport/nccl_log_lines.hpp"

#include <cctype>

namespace linksim::sysimport {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

size_t skip_digits(std::string_view s, size_t i) {
  while (i < s.size() && is_digit(s[i])) ++i;
  return i;
}

// The length of a launcher tag at the start of `s`, or 0.
size_t launcher_tag(std::string_view s) {
  if (s.empty()) return 0;
  if (s[0] == '[') {
    size_t i = 1;
    if (s.substr(1, 4) == "rank") i = 5;
    else if (s.substr(1, 7) == "default") i = 8;
    const size_t digits_end = skip_digits(s, i);
    if (digits_end == i) return 0;
    i = digits_end;
    if (i < s.size() && s[i] == ',') {  // Open MPI: [job,rank]
      const size_t second = skip_digits(s, i + 1);
      if (second == i + 1) return 0;
      i = second;
    }
    if (i >= s.size() || s[i] != ']') return 0;
    ++i;
    for (std::string_view stream : {"<stdout>:", "<stderr>:", ":"}) {
      if (s.substr(i, stream.size()) == stream) {
        i += stream.size();
        while (i < s.size() && s[i] == ' ') ++i;
        return i;
      }
    }
    return 0;
  }
  // srun --label: optional blanks, the task number, ": ".
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  const size_t digits_end = skip_digits(s, i);
  if (digits_end == i || s.substr(digits_end, 2) != ": ") return 0;
  return digits_end + 2;
}

// Reads a "host:pid:tid" token.
void read_host(std::string_view token, LogLineParts& parts) {
  const size_t last = token.rfind(':');
  if (last == std::string_view::npos || last == 0) return;
  const size_t middle = token.rfind(':', last - 1);
  if (middle == std::string_view::npos || middle == 0) return;
  const std::string_view pid = token.substr(middle + 1, last - middle - 1);
  const std::string_view tid = token.substr(last + 1);
  if (pid.empty() || tid.empty() || skip_digits(pid, 0) != pid.size() ||
      skip_digits(tid, 0) != tid.size() || pid.size() > 12) {
    return;
  }
  parts.host = token.substr(0, middle);
  long long value = 0;
  for (char c : pid) value = value * 10 + (c - '0');
  parts.pid = value;
}

// The header before "NCCL INFO": its tokens "host:pid:tid" and "[dev]" (the last bracketed
// number and the token before it).
void read_header(std::string_view header, LogLineParts& parts) {
  size_t pos = header.size();
  while (pos > 0) {
    while (pos > 0 && header[pos - 1] == ' ') --pos;
    size_t start = pos;
    while (start > 0 && header[start - 1] != ' ') --start;
    const std::string_view token = header.substr(start, pos - start);
    if (token.size() >= 3 && token.front() == '[' && token.back() == ']' &&
        skip_digits(token, 1) == token.size() - 1 && token.size() <= 8) {
      int dev = 0;
      for (char c : token.substr(1, token.size() - 2)) dev = dev * 10 + (c - '0');
      parts.dev = dev;
      size_t before = start;
      while (before > 0 && header[before - 1] == ' ') --before;
      size_t host_start = before;
      while (host_start > 0 && header[host_start - 1] != ' ') --host_start;
      read_host(header.substr(host_start, before - host_start), parts);
      return;
    }
    pos = start;
  }
}

}  // namespace

LogLineParts split_log_line(std::string_view line) {
  LogLineParts parts;
  size_t offset = 0;
  for (int guard = 0; guard < 4; ++guard) {
    const size_t tag = launcher_tag(line.substr(offset));
    if (tag == 0) break;
    offset += tag;
  }
  parts.body = line.substr(offset);
  parts.body_offset = offset;
  for (std::string_view marker : {"NCCL INFO", "NCCL WARN"}) {
    const size_t at = parts.body.find(marker);
    if (at == std::string_view::npos) continue;
    parts.nccl = true;
    parts.warn = marker == "NCCL WARN";
    read_header(parts.body.substr(0, at), parts);
    size_t message = at + marker.size();
    while (message < parts.body.size() && parts.body[message] == ' ') ++message;
    parts.message = parts.body.substr(message);
    parts.message_offset = offset + message;
    return parts;
  }
  // Releases before 2.19 print the version with printf, without any header.
  size_t lead = 0;
  while (lead < parts.body.size() && parts.body[lead] == ' ') ++lead;
  if (parts.body.substr(lead, 13) == "NCCL version ") {
    parts.nccl = true;
    parts.message = parts.body.substr(lead);
    parts.message_offset = offset + lead;
  }
  return parts;
}

}  // namespace linksim::sysimport
