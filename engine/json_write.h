// Small helpers to write JSON text deterministically.
#ifndef RECON_ENGINE_JSON_WRITE_H_
#define RECON_ENGINE_JSON_WRITE_H_

#include <string>
#include <string_view>

namespace recon::engine {

// Appends `s` as a quoted JSON string. Bytes >= 0x80 pass through (input is
// valid UTF-8); control characters become \uXXXX.
void AppendJsonString(std::string& out, std::string_view s);
std::string JsonString(std::string_view s);

}  // namespace recon::engine

#endif  // RECON_ENGINE_JSON_WRITE_H_
