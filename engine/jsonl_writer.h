// Writes events and actions as JSONL lines (DESIGN.md formats). Output is
// canonical: fixed key order, object bodies verbatim, so export → import →
// export is byte-identical.
#ifndef RECON_ENGINE_JSONL_WRITER_H_
#define RECON_ENGINE_JSONL_WRITER_H_

#include <cstdint>
#include <string>

#include "records/record.h"

namespace recon::engine {

// One line (with trailing '\n'). `files` is used for Content events.
std::string EventToJsonl(uint64_t seq, const records::EventRecord& event,
                         const records::ContentFiles* files = nullptr);

// {"cause":N,"domain":...,"verb":...,...}\n
std::string ActionToJsonl(const records::ActionRecord& action);

}  // namespace recon::engine

#endif  // RECON_ENGINE_JSONL_WRITER_H_
