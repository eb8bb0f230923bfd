// Headers that most translation units parse, precompiled once per target
// (CMake's target_precompile_headers, see recon_precompile() in the root
// CMakeLists.txt). Parsing them took a third of each file's compile time.
// Nothing may rely on this file: every source still includes what it uses,
// and `-DRECON_PCH=OFF` builds without it to prove that.
#ifndef RECON_BASE_PRECOMPILED_H_
#define RECON_BASE_PRECOMPILED_H_

#include <capnp/generated-header-support.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

#endif  // RECON_BASE_PRECOMPILED_H_
