// SPDX-License-Identifier: Apache-2.0
// Real NCCL_DEBUG=INFO logs (docs/diagnose.md): a log's facts or one positioned refusal. A
// parsed log must give a node map covering its ranks, a diagnosis without a machine, and a
// topology skeleton that loads or is refused with a message.
#include "fuzz/fuzz_support.hpp"
#include "linksim/diagnose.hpp"
#include "linksim/diagnose_report.hpp"
#include "linksim/nccl_log.hpp"
#include "linksim/topology_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  const std::string_view text = fuzz::as_text(data, size);
  std::optional<NcclLog> log;
  try {
    log.emplace(parse_nccl_log(text, "nccl.log"));
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "nccl.log");
    return 0;
  }
  const NcclLog::Nodes nodes = log->node_map();
  if (static_cast<int>(nodes.node_of_rank.size()) != log->rank_count()) {
    fuzz::finding("a node map that does not cover the ranks", text);
  }
  const Diagnosis diagnosis = diagnose(*log, {});
  if (diagnosis.has_fault()) fuzz::finding("a fault found without a machine", text);
  (void)render_diagnosis_text(diagnosis);
  (void)render_diagnosis_json(diagnosis);
  std::string yaml;
  try {
    yaml = nccl_log_topology(*log, "skeleton");
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "");
    return 0;
  }
  try {
    (void)parse_topology(yaml, "skeleton.yaml");
  } catch (const ConfigError& error) {
    fuzz::finding(std::string("the topology skeleton does not load: ") + error.what(), yaml);
  }
  return 0;
}
