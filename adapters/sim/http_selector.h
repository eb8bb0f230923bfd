// Label and field selectors as the Kubernetes API parses them from list and
// watch queries: "a=b,c!=d,e,!f,g in (x,y),h notin (z)" for labels;
// metadata.name and metadata.namespace with = == != for fields.
#ifndef RECON_ADAPTERS_SIM_HTTP_SELECTOR_H_
#define RECON_ADAPTERS_SIM_HTTP_SELECTOR_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/json.h"

namespace recon::sim {

class Selector {
 public:
  // InvalidArgument naming the bad term.
  static absl::StatusOr<Selector> ParseLabels(std::string_view text);
  static absl::StatusOr<Selector> ParseFields(std::string_view text);

  // Labels: against metadata.labels; fields: against the object.
  bool Matches(const engine::Json& object) const;
  bool empty() const { return terms_.empty(); }

 private:
  enum class Op { kEq, kNe, kIn, kNotIn, kExists, kNotExists };
  struct Term {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  bool fields_ = false;
  std::vector<Term> terms_;
};

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_HTTP_SELECTOR_H_
