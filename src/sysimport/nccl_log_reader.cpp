// SPDX-License-Identifier: Apache-2.0
// parse_nccl_log: each NCCL line's message matched against the INFO formats of NCCL 2.10 to
// today (docs/diagnose.md#line-formats cites the source of each). A message that matches none
// is skipped; a connection line without its transport, or a last line cut off mid-message,
// is an error.
#include <fmt/core.h>

#include <algorithm>
#include <charconv>

#include "linksim/error.hpp"
#include "linksim/input_file.hpp"
#include "linksim/nccl_log.hpp"
#include "common/text_position.hpp"
#include "sysimport/nccl_log_lines.hpp"

namespace linksim {
namespace {

using sysimport::LogLineParts;

// A cursor over one message: literals, integers, words.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : s_(text) {}
  bool done() const { return pos_ >= s_.size(); }
  size_t pos() const { return pos_; }
  std::string_view rest() const { return s_.substr(std::min(pos_, s_.size())); }
  void spaces() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool lit(std::string_view text) {
    if (s_.substr(pos_, text.size()) != text) return false;
    pos_ += text.size();
    return true;
  }
  bool peek_digit() const {
    const size_t i = pos_ < s_.size() && s_[pos_] == '-' ? pos_ + 1 : pos_;
    return i < s_.size() && s_[i] >= '0' && s_[i] <= '9';
  }
  std::optional<int> integer() {
    int value = 0;
    const char* begin = s_.data() + pos_;
    const auto [end, ec] = std::from_chars(begin, s_.data() + s_.size(), value);
    if (ec != std::errc()) return std::nullopt;
    pos_ += static_cast<size_t>(end - begin);
    return value;
  }
  std::string_view until(char stop) {
    const size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != stop) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  std::string_view word() { return until(' '); }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

enum class Parsed { kParsed, kUnknown, kCut };

// The largest rank count a log may state (docs/diagnose.md#bounds): above the largest NCCL
// jobs published (tens of thousands of GPUs), low enough that a rank's table stays small.
constexpr int kMaxLogRanks = 1 << 20;

struct LineContext {
  int number = 0;
  std::string_view line;
  const LogLineParts* parts = nullptr;
  NcclLogLine source() const { return {number, std::string(line)}; }
};

class Reader {
 public:
  Reader(NcclLog& log, const std::string& filename) : log_(log), filename_(filename) {}
  Parsed message(const LineContext& ctx);
  [[noreturn]] void fail(const LineContext& ctx, size_t column0, const std::string& what) const {
    throw ConfigError(SourceLocation{SourceFile(filename_), ctx.number, static_cast<int>(column0) + 1},
                      what);
  }

 private:
  NcclLogRank& rank_entry(int rank);
  /// Refuses a rank (or rank count) above kMaxLogRanks, at the message's start.
  void check_rank(const LineContext& ctx, int value) const {
    if (value <= kMaxLogRanks) return;
    fail(ctx, ctx.parts->message_offset,
         fmt::format("expected ranks of at most {}, got {}", kMaxLogRanks, value));
  }
  void note_host(int rank, const LogLineParts& parts);
  void note_dev(int rank, std::string_view bracket);
  Parsed channel(const LineContext& ctx, Cursor& c);
  Parsed hop(const LineContext& ctx, Cursor& c, int channel);
  Parsed collnet(const LineContext& ctx, Cursor& c);
  Parsed trees(const LineContext& ctx, Cursor& c);
  Parsed counts(const LineContext& ctx, std::string_view message);
  Parsed comm(const LineContext& ctx, std::string_view message);
  Parsed env(const LineContext& ctx, std::string_view message);
  Parsed ib_devices(const LineContext& ctx, Cursor& c);
  Parsed cpu_node(const LineContext& ctx, Cursor& c);
  Parsed gpu_link(const LineContext& ctx, Cursor& c);
  void transport(const LineContext& ctx, NcclLogHop& hop, std::string_view via, size_t column0);

  NcclLog& log_;
  const std::string& filename_;
};

NcclLogRank& Reader::rank_entry(int rank) {
  auto it = std::find_if(log_.rank_info.begin(), log_.rank_info.end(),
                         [rank](const NcclLogRank& r) { return r.rank == rank; });
  if (it != log_.rank_info.end()) return *it;
  NcclLogRank entry;
  entry.rank = rank;
  const auto at = std::lower_bound(log_.rank_info.begin(), log_.rank_info.end(), rank,
                                   [](const NcclLogRank& r, int v) { return r.rank < v; });
  return *log_.rank_info.insert(at, entry);
}

void Reader::note_host(int rank, const LogLineParts& parts) {
  if (parts.host.empty()) return;
  NcclLogRank& r = rank_entry(rank);
  r.host = std::string(parts.host);
  r.pid = parts.pid;
}

// "r[D]": NCCL 2.18 and later print the NVML device index; earlier releases the PCI bus id in
// hex (transport/p2p.cc, shm.cc, net.cc). A bus id has at least four hex digits (bus, device
// and function: 0000:18:00.0 -> 18000), a device index at most three decimal digits.
void Reader::note_dev(int rank, std::string_view bracket) {
  if (bracket.empty()) return;
  const bool hex = std::any_of(bracket.begin(), bracket.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
  });
  NcclLogRank& r = rank_entry(rank);
  if (hex || bracket.size() >= 4) {
    r.bus_id = std::string(bracket);
    return;
  }
  int dev = 0;
  const auto [end, ec] = std::from_chars(bracket.data(), bracket.data() + bracket.size(), dev);
  if (ec == std::errc() && end == bracket.data() + bracket.size()) r.nvml_dev = dev;
}

void Reader::transport(const LineContext& ctx, NcclLogHop& hop, std::string_view via,
                       size_t column0) {
  hop.via = std::string(via);
  hop.read = via.find("/read") != std::string_view::npos;
  auto starts = [&](std::string_view p) { return via.substr(0, p.size()) == p; };
  if (starts("P2P/IPC")) hop.transport = NcclLogTransport::kP2pIpc;
  else if (starts("P2P/CUMEM") || starts("P2P/MNNVL")) hop.transport = NcclLogTransport::kP2pCumem;
  else if (starts("P2P/direct pointer")) hop.transport = NcclLogTransport::kP2pDirect;
  else if (starts("P2P/indirect")) hop.transport = NcclLogTransport::kP2pIndirect;
  else if (starts("SHM")) hop.transport = NcclLogTransport::kShm;
  else if (starts("NET/") || starts("COLLNET/")) {
    Cursor c(via);
    c.lit("NET/");
    c.lit("COLLNET/");
    const std::string_view name = c.until('/');
    if (!c.lit("/") || !c.peek_digit()) {
      fail(ctx, column0 + c.pos(), fmt::format("expected a NIC index after 'NET/{}/', got '{}'",
                                               name, c.rest()));
    }
    hop.net_dev = c.integer();
    if (c.lit("(")) {
      hop.proxy_rank = c.integer();
      c.lit(")");
    }
    hop.gdr = c.rest().find("/GDRDMA") != std::string_view::npos;
    if (starts("COLLNET/")) hop.transport = NcclLogTransport::kCollNet;
    else if (name.substr(0, 2) == "IB") hop.transport = NcclLogTransport::kNetIb;
    else if (name == "Socket") hop.transport = NcclLogTransport::kNetSocket;
    else if (name.find("Libfabric") != std::string_view::npos || name.find("OFI") != std::string_view::npos) {
      hop.transport = NcclLogTransport::kNetOfi;
    } else {
      hop.transport = NcclLogTransport::kNetOther;
    }
  } else {
    fail(ctx, column0, fmt::format("expected a transport after 'via' (P2P/..., SHM/..., NET/...), "
                                   "got '{}'", via));
  }
}

// "a[x] -> b[y] [send] via T" (after "Channel cc[/i] : ").
Parsed Reader::hop(const LineContext& ctx, Cursor& c, int channel) {
  NcclLogHop hop;
  hop.channel = channel;
  hop.source = ctx.source();
  const int from = *c.integer();
  if (!c.lit("[")) return Parsed::kUnknown;
  const std::string_view from_dev = c.until(']');
  if (!c.lit("] -> ") || !c.peek_digit()) return Parsed::kUnknown;
  const int to = *c.integer();
  if (!c.lit("[")) return Parsed::kUnknown;
  const std::string_view to_dev = c.until(']');
  if (!c.lit("]")) return Parsed::kCut;
  c.spaces();
  if (c.lit("[send]")) c.spaces();
  else if (c.lit("[receive]")) {
    hop.receive = true;
    c.spaces();
  }
  if (!c.lit("via")) {
    if (c.done()) return Parsed::kCut;
    return Parsed::kUnknown;
  }
  c.spaces();
  const size_t column0 = ctx.parts->message_offset + c.pos();
  const std::string_view via = c.rest();
  if (via.empty()) fail(ctx, column0, "expected a transport after 'via', got the end of the line");
  check_rank(ctx, from);
  check_rank(ctx, to);
  hop.from_rank = from;
  hop.to_rank = to;
  transport(ctx, hop, via, column0);
  note_dev(from, from_dev);
  note_dev(to, to_dev);
  note_host(hop.receive ? to : from, *ctx.parts);
  log_.hops.push_back(std::move(hop));
  return Parsed::kParsed;
}

// "Channel 00/24 :    0   1   2" (a ring) or "Channel 00[/0] : a[x] -> b[y] ... via T".
Parsed Reader::channel(const LineContext& ctx, Cursor& c) {
  const std::optional<int> id = c.integer();
  if (!id) return Parsed::kUnknown;
  std::optional<int> second;
  if (c.lit("/")) second = c.integer();
  c.spaces();
  if (!c.lit(":")) return Parsed::kUnknown;
  c.spaces();
  if (c.done()) return Parsed::kCut;
  if (!c.peek_digit()) return Parsed::kUnknown;
  Cursor probe = c;
  probe.integer();
  if (probe.lit("[")) return hop(ctx, c, *id);
  NcclLogRing ring;
  ring.channel = *id;
  ring.source = ctx.source();
  while (!c.done()) {
    c.spaces();
    if (c.done()) break;
    const std::optional<int> r = c.integer();
    if (!r || *r < 0) return Parsed::kUnknown;
    check_rank(ctx, *r);
    ring.ranks.push_back(*r);
  }
  if (second) log_.ring_channels = NcclLogCount{*second, ctx.source()};
  log_.rings.push_back(std::move(ring));
  return Parsed::kParsed;
}

// "CollNet 00/0 : 3 [send] via COLLNET/IBext/0/GDRDMA" (transport/coll_net.cc, 2.12+).
Parsed Reader::collnet(const LineContext& ctx, Cursor& c) {
  const std::optional<int> id = c.integer();
  if (!id) return Parsed::kUnknown;
  if (c.lit("/")) c.integer();
  if (!c.lit(" : ") || !c.peek_digit()) return Parsed::kUnknown;
  NcclLogHop hop;
  hop.channel = *id;
  hop.from_rank = *c.integer();
  check_rank(ctx, hop.from_rank);
  hop.source = ctx.source();
  c.spaces();
  if (c.lit("[receive]")) hop.receive = true;
  else c.lit("[send]");
  c.spaces();
  if (!c.lit("via ")) return c.done() ? Parsed::kCut : Parsed::kUnknown;
  transport(ctx, hop, c.rest(), ctx.parts->message_offset + c.pos());
  note_host(hop.from_rank, *ctx.parts);
  log_.hops.push_back(std::move(hop));
  return Parsed::kParsed;
}

// "Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1" (init.cc: "Trees%s", " [%d] %d/%d/%d->%d->%d").
Parsed Reader::trees(const LineContext& ctx, Cursor& c) {
  std::vector<NcclLogTreeNode> nodes;
  c.spaces();
  while (c.lit("[")) {
    NcclLogTreeNode node;
    node.source = ctx.source();
    const std::optional<int> ch = c.integer();
    if (!ch || !c.lit("] ")) return Parsed::kUnknown;
    node.channel = *ch;
    for (int i = 0; i < 3; ++i) {
      const std::optional<int> d = c.integer();
      if (!d) return Parsed::kUnknown;
      if (*d >= 0) node.down.push_back(*d);
      if (i < 2 && !c.lit("/")) return Parsed::kUnknown;
    }
    if (!c.lit("->")) return Parsed::kUnknown;
    const std::optional<int> me = c.integer();
    if (!me || !c.lit("->")) return Parsed::kUnknown;
    const std::optional<int> up = c.integer();
    if (!up) return Parsed::kUnknown;
    check_rank(ctx, *me);
    check_rank(ctx, *up);
    for (int d : node.down) check_rank(ctx, d);
    node.rank = *me;
    node.up = *up;
    nodes.push_back(std::move(node));
    c.spaces();
  }
  if (nodes.empty() || !c.done()) return Parsed::kUnknown;
  note_host(nodes.front().rank, *ctx.parts);
  for (NcclLogTreeNode& n : nodes) log_.trees.push_back(std::move(n));
  return Parsed::kParsed;
}

// "32 coll channels, 32 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels
// per peer" (init.cc; 2.10-2.16 without collnet and nvls, 2.17-2.18 without collnet).
Parsed Reader::counts(const LineContext& ctx, std::string_view message) {
  Cursor c(message);
  bool any = false;
  while (!c.done()) {
    const std::optional<int> n = c.integer();
    if (!n) return Parsed::kUnknown;
    c.spaces();
    std::string_view what = c.until(',');
    c.lit(",");
    c.spaces();
    const NcclLogCount count{*n, ctx.source()};
    if (what == "coll channels") log_.coll_channels = count;
    else if (what == "collnet channels") log_.collnet_channels = count;
    else if (what == "nvls channels") log_.nvls_channels = count;
    else if (what == "p2p channels") log_.p2p_channels = count;
    else if (what == "p2p channels per peer") log_.p2p_channels_per_peer = count;
    else return any ? Parsed::kParsed : Parsed::kUnknown;
    any = true;
  }
  return any ? Parsed::kParsed : Parsed::kUnknown;
}

// "[ncclCommInitRank ]comm 0x... rank R nranks N cudaDev D [nvmlDev V] busId B ... - Init
// COMPLETE" (2.10+) and "comm 0x... rank R nRanks N nNodes M localRanks L localRank l MNNVL x"
// (2.19+): the values after the keys rank, nranks/nRanks, nNodes, cudaDev, nvmlDev, busId.
Parsed Reader::comm(const LineContext& ctx, std::string_view message) {
  const size_t at = message.find("comm ");
  if (at == std::string_view::npos || (at > 0 && message[at - 1] != ' ')) return Parsed::kUnknown;
  if (message.find("Destroy") != std::string_view::npos) return Parsed::kUnknown;
  Cursor c(message.substr(at + 5));
  c.word();
  std::optional<int> rank;
  std::optional<int> nranks, nnodes, cuda_dev, nvml_dev;
  std::string_view bus;
  while (!c.done()) {
    c.spaces();
    const std::string_view key = c.word();
    c.spaces();
    if (key == "busId") {
      bus = c.word();
      continue;
    }
    if (!c.peek_digit()) continue;
    const std::optional<int> v = c.integer();
    if (key == "rank") rank = v;
    else if (key == "nranks" || key == "nRanks") nranks = v;
    else if (key == "nNodes") nnodes = v;
    else if (key == "cudaDev") cuda_dev = v;
    else if (key == "nvmlDev") nvml_dev = v;
  }
  if (!rank || *rank < 0 || !nranks || *nranks <= 0) return Parsed::kUnknown;
  check_rank(ctx, *rank);
  check_rank(ctx, *nranks);
  if (nnodes) check_rank(ctx, *nnodes);
  NcclLogRank& r = rank_entry(*rank);
  if (cuda_dev) r.cuda_dev = cuda_dev;
  if (nvml_dev) r.nvml_dev = nvml_dev;
  if (!bus.empty()) r.bus_id = std::string(bus);
  note_host(*rank, *ctx.parts);
  if (!log_.ranks || *nranks > log_.ranks->value) log_.ranks = NcclLogCount{*nranks, ctx.source()};
  if (nnodes && *nnodes > 0 && (!log_.nodes || *nnodes > log_.nodes->value)) {
    log_.nodes = NcclLogCount{*nnodes, ctx.source()};
  }
  return Parsed::kParsed;
}

// "NCCL_P2P_DISABLE set by environment to 1." (param.h NCCL_PARAM: "%s set by environment to
// %lld."; string variables without the period).
Parsed Reader::env(const LineContext& ctx, std::string_view message) {
  const size_t at = message.find(" set by environment to ");
  if (at == std::string_view::npos) return Parsed::kUnknown;
  const std::string_view name = message.substr(0, at);
  if (name.empty() || name.find(' ') != std::string_view::npos) return Parsed::kUnknown;
  std::string_view value = message.substr(at + 23);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.remove_suffix(1);
  if (!value.empty() && value.back() == '.') value.remove_suffix(1);
  log_.env.push_back({std::string(name), std::string(value), ctx.source()});
  return Parsed::kParsed;
}

// "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB ib0:10.0.0.1<0>" (net_ib.cc).
Parsed Reader::ib_devices(const LineContext& ctx, Cursor& c) {
  log_.nics.push_back(ctx.source());
  if (!log_.ib_devices.empty()) return Parsed::kParsed;
  while (c.lit("[")) {
    NcclLogNetDevice d;
    d.source = ctx.source();
    const std::optional<int> index = c.integer();
    if (!index || !c.lit("]")) return Parsed::kParsed;
    d.index = *index;
    d.name = std::string(c.until(':'));
    if (!c.lit(":")) return Parsed::kParsed;
    d.port = c.integer().value_or(1);
    c.word();
    c.spaces();
    log_.ib_devices.push_back(std::move(d));
  }
  return Parsed::kParsed;
}

// A CPU node of NCCL's topology dump, "CPU/<system>-<numa> (arch/vendor/model)" ("CPU/<numa>
// (...)" before 2.19; src/graph/topo.cc ncclTopoPrintRec): the first one is kept. A line of
// another shape is not this one.
Parsed Reader::cpu_node(const LineContext& ctx, Cursor& c) {
  c.until('(');
  std::optional<int> fields[3];
  if (!c.lit("(")) return Parsed::kUnknown;
  for (int i = 0; i < 3; ++i) {
    if (i > 0 && !c.lit("/")) return Parsed::kUnknown;
    fields[i] = c.integer();
    if (!fields[i]) return Parsed::kUnknown;
  }
  if (!c.lit(")")) return Parsed::kUnknown;
  if (!log_.cpu) log_.cpu = NcclLogCpu{*fields[0], *fields[1], *fields[2], ctx.source()};
  return Parsed::kParsed;
}

// A GPU below its PCIe parent in NCCL's topology dump, "+ PCI[24.0] - GPU/0-4e000 (3)" after
// the indentation (ncclTopoPrintRec): the first line of each rank is kept (every rank of a
// node prints the node's whole dump). A line of another shape is not this one.
Parsed Reader::gpu_link(const LineContext& ctx, Cursor& c) {
  const std::string_view bw_text = c.until(']');
  double bw = 0;
  const auto [end, ec] = std::from_chars(bw_text.data(), bw_text.data() + bw_text.size(), bw);
  if (ec != std::errc() || end != bw_text.data() + bw_text.size() || !(bw > 0)) {
    return Parsed::kUnknown;
  }
  if (!c.lit("] - GPU/")) return Parsed::kUnknown;
  c.until('-');
  if (!c.lit("-")) return Parsed::kUnknown;
  const std::string_view bus = c.until(' ');
  if (bus.empty() || !c.lit(" (")) return Parsed::kUnknown;
  const std::optional<int> rank = c.integer();
  if (!rank || *rank < 0 || !c.lit(")")) return Parsed::kUnknown;
  check_rank(ctx, *rank);
  const bool seen = std::any_of(log_.gpu_links.begin(), log_.gpu_links.end(),
                                [&](const NcclLogGpuLink& l) { return l.rank == *rank; });
  if (!seen) log_.gpu_links.push_back({std::string(bus), *rank, bw, ctx.source()});
  return Parsed::kParsed;
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

Parsed Reader::message(const LineContext& ctx) {
  const std::string_view m = ctx.parts->message;
  Cursor c(m);
  if (c.lit("NCCL version ")) {
    const std::string_view v = c.word();
    if (v.empty()) return Parsed::kCut;
    log_.version = std::string(v);
    log_.version_line = ctx.source();
    return Parsed::kParsed;
  }
  if (c.lit("Channel ")) return channel(ctx, c);
  if (c.lit("CollNet ")) return collnet(ctx, c);
  if (c.lit("Trees")) return trees(ctx, c);
  if (!m.empty() && m[0] >= '0' && m[0] <= '9' && contains(m, " channels")) return counts(ctx, m);
  if (contains(m, " set by environment to ")) return env(ctx, m);
  if (c.lit("Using network ")) {
    log_.network = ctx.source();
    log_.network_name = std::string(c.rest());
    return Parsed::kParsed;
  }
  auto keep = [&](std::vector<NcclLogLine>& into) {
    into.push_back(ctx.source());
    return Parsed::kParsed;
  };
  if (c.lit("Could not enable P2P")) return keep(log_.p2p_refused);
  if (contains(m, "GPU Direct RDMA Disabled")) return keep(log_.gdr_disabled);
  if (contains(m, "NET/IB : No device found")) return keep(log_.no_ib_device);
  if (c.lit("NVLS multicast support is not available")) return keep(log_.nvls_unavailable);
  if (c.lit("NVLS multicast support is available")) return keep(log_.nvls_available);
  if (c.lit("NVLS comm ") || c.lit("Connected NVLS")) return keep(log_.nvls_used);
  if (c.lit("Connected all rings, use ring PXN 1")) return keep(log_.ring_pxn);
  if (c.lit("NET/IB : Using ")) return ib_devices(ctx, c);
  if (c.lit("CPU/")) return cpu_node(ctx, c);
  {
    Cursor dump(m);
    dump.spaces();
    if (dump.lit("+ PCI[") && contains(m, "] - GPU/")) return gpu_link(ctx, dump);
  }
  if (c.lit("NET/Socket : Using [") || c.lit("NET/OFI ")) return keep(log_.nics);
  if (contains(m, "comm ")) return comm(ctx, m);
  return Parsed::kUnknown;
}

// The first byte that is not text: controls other than tab, CR and LF (UTF-8 passes).
void check_log_text(std::string_view text, const std::string& filename) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b == '\n') {
      ++line;
      line_start = i + 1;
      continue;
    }
    if ((b < 0x20 && b != '\t' && b != '\r') || b == 0x7f) {
      throw ConfigError(SourceLocation{SourceFile(filename), line, static_cast<int>(i - line_start) + 1},
                        fmt::format("expected the text of an NCCL_DEBUG=INFO log, got byte 0x{:02x} "
                                    "(a binary file?)", b));
    }
  }
}

bool known_start(std::string_view m) {
  for (std::string_view k : {"Channel ", "CollNet ", "Trees", "NCCL version", "Using network",
                             "comm ", "Ring "}) {
    if (m.substr(0, k.size()) == k) return true;
  }
  return !m.empty() && m[0] >= '0' && m[0] <= '9';
}

}  // namespace

NcclLog parse_nccl_log(std::string_view text, const std::string& filename) {
  check_log_text(text, filename);
  // Names taken from the log (hosts, NICs, environment values) go into JSON and topology YAML.
  detail::require_utf8(text, filename);
  NcclLog log;
  log.file = filename;
  Reader reader(log, filename);
  std::string first_host;
  size_t start = 0;
  int number = 0;
  std::string_view first_line;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    const bool last_cut = end == std::string_view::npos;
    if (last_cut) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (number == 1) first_line = line;
    const LogLineParts parts = sysimport::split_log_line(line);
    const LineContext ctx{number, line, &parts};
    if (!parts.nccl) {
      // A last line without its line end that starts like the log's own header lines is a
      // header cut in the middle.
      if (last_cut && !first_host.empty() && parts.body.substr(0, first_host.size() + 1) ==
                                                 first_host + ":") {
        reader.fail(ctx, parts.body_offset, "the log ends in a cut line: expected 'NCCL INFO' "
                                            "after the host:pid:tid header");
      }
      continue;
    }
    ++log.nccl_lines;
    if (first_host.empty() && !parts.host.empty()) first_host = std::string(parts.host);
    if (parts.warn) continue;
    Parsed result = Parsed::kCut;
    try {
      result = reader.message(ctx);
    } catch (const ConfigError&) {
      // A last line without its line end that does not parse was cut, not mistyped.
      if (!last_cut) throw;
    }
    if (result == Parsed::kCut || (last_cut && result == Parsed::kUnknown &&
                                   (parts.message.empty() || known_start(parts.message)))) {
      reader.fail(ctx, line.size(), fmt::format("the log ends in a cut line: expected the rest "
                                                "of '{}'", parts.message));
    }
  }
  if (log.nccl_lines == 0) {
    const std::string shown(first_line.substr(0, 60));
    throw ConfigError(SourceLocation{SourceFile(filename), 1, 1},
                      fmt::format("expected an NCCL_DEBUG=INFO log (lines with 'NCCL INFO'), got "
                                  "no NCCL line; line 1 is '{}{}'",
                                  shown, first_line.size() > 60 ? "..." : ""));
  }
  return log;
}

NcclLog read_nccl_log(const std::string& path) { return parse_nccl_log(read_input_file(path), path); }

}  // namespace linksim
