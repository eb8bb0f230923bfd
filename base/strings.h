// Debian's abseil is built with its own absl::string_view (not an alias of
// std::string_view), so absl::StrCat rejects std::string_view arguments.
// recon::StrCat / recon::StrAppend forward to abseil after converting them.
// Header-only; every folder may include base/.
#ifndef RECON_BASE_STRINGS_H_
#define RECON_BASE_STRINGS_H_

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace recon {
namespace strings_internal {

template <typename T>
decltype(auto) Arg(const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return absl::string_view(v.data(), v.size());
  } else {
    return (v);
  }
}

}  // namespace strings_internal

template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(strings_internal::Arg(args)...);
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, strings_internal::Arg(args)...);
}

inline std::string_view Sv(absl::string_view s) { return {s.data(), s.size()}; }
inline absl::string_view Av(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace recon

#endif  // RECON_BASE_STRINGS_H_
