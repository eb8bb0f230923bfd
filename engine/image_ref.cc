#include "engine/image_ref.h"

#include "base/strings.h"

namespace recon::engine {
namespace {

bool IsHex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return !s.empty();
}

bool ValidTag(std::string_view t) {
  if (t.empty() || t.size() > 128) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word && (i == 0 || (c != '.' && c != '-'))) return false;
  }
  return true;
}

bool ValidPathChars(std::string_view p) {
  for (char c : p)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' || c == '/'))
      return false;
  return true;
}

}  // namespace

std::string ImageRef::Name() const {
  return registry_implicit ? repository : recon::StrCat(registry, "/", repository);
}

std::string ImageRef::String() const {
  std::string out = Name();
  if (!tag.empty()) recon::StrAppend(&out, ":", tag);
  if (!digest.empty()) recon::StrAppend(&out, "@", digest);
  return out;
}

absl::StatusOr<ImageRef> ParseImageRef(std::string_view ref) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(recon::StrCat("image reference \"", ref, "\": ", why));
  };
  if (ref.empty()) return bad("empty");
  ImageRef out;
  std::string_view rest = ref;
  if (size_t at = rest.find('@'); at != std::string_view::npos) {
    std::string_view digest = rest.substr(at + 1);
    size_t colon = digest.find(':');
    if (colon == std::string_view::npos || colon == 0 || !IsHex(digest.substr(colon + 1)) ||
        digest.substr(colon + 1).size() < 32) {
      return bad(recon::StrCat("digest \"", digest, "\" is not algorithm:hex"));
    }
    out.digest = std::string(digest);
    rest = rest.substr(0, at);
  }
  size_t slash = rest.find('/');
  std::string_view first = slash == std::string_view::npos ? std::string_view() : rest.substr(0, slash);
  if (!first.empty() && (first.find('.') != std::string_view::npos ||
                         first.find(':') != std::string_view::npos || first == "localhost")) {
    out.registry = std::string(first);
    rest = rest.substr(slash + 1);
  } else {
    out.registry = "docker.io";
    out.registry_implicit = true;
  }
  size_t last_slash = rest.rfind('/');
  size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos && (last_slash == std::string_view::npos || colon > last_slash)) {
    out.tag = std::string(rest.substr(colon + 1));
    rest = rest.substr(0, colon);
    if (!ValidTag(out.tag)) return bad(recon::StrCat("tag \"", out.tag, "\" is not valid"));
  }
  if (rest.empty()) return bad("empty repository");
  if (!ValidPathChars(rest) || rest.front() == '/' || rest.back() == '/' ||
      rest.find("//") != std::string_view::npos) {
    return bad(recon::StrCat("repository \"", rest, "\" is not lowercase path components"));
  }
  out.repository = std::string(rest);
  return out;
}

}  // namespace recon::engine
