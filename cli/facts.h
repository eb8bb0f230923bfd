// `--fact key=value` flags → the Cluster event's facts object. A value that
// parses as JSON is taken as that JSON (object, array, number, boolean,
// null, quoted string); anything else is the plain string, so
// `--fact version=4.16.0` stays "4.16.0" and
// `--fact operatorEnv={"RELATED_IMAGE_X":"quay.io/a/b:1"}` is an object.
// A string that reads as JSON (`--fact v=4.16` is the number 4.16) is given
// quoted: `--fact 'v="4.16"'`.
#ifndef RECON_CLI_FACTS_H_
#define RECON_CLI_FACTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/json.h"

namespace recon::cli {

engine::Json FactValue(const std::string& text);
// Errors name the flag that has no '=' or an empty key.
absl::StatusOr<engine::Json> ParseFacts(const std::vector<std::string>& flags);

}  // namespace recon::cli

#endif  // RECON_CLI_FACTS_H_
