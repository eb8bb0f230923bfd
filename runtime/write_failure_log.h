// Failed writes, said once at warn level per object and then at most once
// per interval of the runtime's (injected) clock, with how many failures
// went unsaid in between: a refused write is visible without a loop of
// them filling the log (issue 18).
#ifndef RECON_RUNTIME_WRITE_FAILURE_LOG_H_
#define RECON_RUNTIME_WRITE_FAILURE_LOG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "records/record.h"

namespace recon::runtime {

class WriteFailureLog {
 public:
  explicit WriteFailureLog(int64_t interval_ns = 30'000'000'000) : interval_ns_(interval_ns) {}

  // The warning line for this failure, or nullopt while the object's
  // interval since its last warning runs. `status` 0: no HTTP status.
  std::optional<std::string> Line(const records::ActionRecord& action, int status, std::string_view message,
                                  int64_t now_ns);

 private:
  struct PerObject {
    int64_t last_ns = 0;
    uint64_t unsaid = 0;
  };
  int64_t interval_ns_;
  std::map<std::string, PerObject> objects_;
};

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_WRITE_FAILURE_LOG_H_
