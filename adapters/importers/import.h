// What both importers share: which kinds to keep, and what they hand back
// (events in log order, plus what was skipped and why).
#ifndef RECON_ADAPTERS_IMPORTERS_IMPORT_H_
#define RECON_ADAPTERS_IMPORTERS_IMPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/resource.h"
#include "records/record.h"

namespace recon::adapters::importers {

struct KindFilter {
  // The resource types some domain declares (cli::DomainResources); they
  // also map a plural ("imagestreams") to its kind when a log names only it.
  std::vector<engine::ResourceType> types;
  bool all_kinds = false;  // keep every kind, declared or not

  // The declared type of (group, plural), or null.
  const engine::ResourceType* ByResource(std::string_view group, std::string_view plural) const;
  bool Keeps(std::string_view group, std::string_view kind) const;
};

struct ImportResult {
  std::vector<records::EventRecord> events;  // in the order they are appended
  // Reason -> how many lines (audit) or objects/files (must-gather) were
  // skipped for it; the cli prints these.
  std::map<std::string, uint64_t> skipped;
  uint64_t read = 0;  // lines (audit) or objects (must-gather) read
};

// "3 skipped: 2 reads (get/list/watch), 1 failed (4xx/5xx)" style lines, one
// per reason, sorted by count (then reason).
std::vector<std::string> DescribeSkipped(const ImportResult& result);

}  // namespace recon::adapters::importers

#endif  // RECON_ADAPTERS_IMPORTERS_IMPORT_H_
