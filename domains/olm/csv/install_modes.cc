#include "domains/olm/csv/install_modes.h"

#include <map>
#include <vector>

#include "base/strings.h"

namespace recon::olm {
namespace {

constexpr char kOwn[] = "OwnNamespace";
constexpr char kSingle[] = "SingleNamespace";
constexpr char kMulti[] = "MultiNamespace";
constexpr char kAll[] = "AllNamespaces";

InstallModeFailure Unsupported(std::string message) { return {"UnsupportedOperatorGroup", std::move(message)}; }

std::string NotSupported(std::string_view mode, std::string_view what) {
  return recon::StrCat(mode, " InstallModeType not supported, cannot configure to watch ", what);
}

// Go's %v of the []InstallMode: [{OwnNamespace true} {OwnNamespace false}].
std::string GoList(const engine::Json& modes) {
  std::string out = "[";
  for (size_t i = 0; i < modes.size(); ++i) {
    const engine::Json& m = modes[i];
    const engine::Json& s = engine::Path(m, {"supported"});
    recon::StrAppend(&out, i == 0 ? "" : " ", "{", engine::GetString(m, {"type"}), " ",
                     s.is_boolean() && s.get<bool>() ? "true" : "false", "}");
  }
  return out + "]";
}

}  // namespace

std::optional<InstallModeFailure> CheckInstallModes(const engine::Json& install_modes,
                                                    std::string_view csv_namespace,
                                                    std::optional<std::string_view> targets) {
  if (!targets) return InstallModeFailure{"NoTargetNamespaces", "csv missing olm.targetNamespaces annotation"};
  // The set: a type missing from the list is unsupported; a repeated type
  // is an error whatever its value.
  std::map<std::string, bool, std::less<>> set;
  const engine::Json modes = install_modes.is_array() ? install_modes : engine::Json::array();
  for (const engine::Json& m : modes) {
    const engine::Json& s = engine::Path(m, {"supported"});
    if (!set.emplace(engine::GetString(m, {"type"}), s.is_boolean() && s.get<bool>()).second)
      return InstallModeFailure{"InvalidInstallModes",
                                recon::StrCat("InstallMode list contains duplicates, cannot make set: ", GoList(modes))};
  }
  auto supports = [&](std::string_view mode) {
    auto it = set.find(mode);
    return it != set.end() && it->second;
  };
  // strings.Split: "" is one target, the empty namespace (all of them).
  std::vector<std::string_view> ns;
  for (std::string_view rest = *targets;;) {
    size_t comma = rest.find(',');
    ns.push_back(rest.substr(0, comma));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (ns.size() == 1) {
    if (ns[0] == csv_namespace) {
      if (!supports(kOwn)) return Unsupported(NotSupported(kOwn, "own namespace"));
    } else if (ns[0].empty()) {
      if (!supports(kAll)) return Unsupported(NotSupported(kAll, "all namespaces"));
    } else if (!supports(kSingle)) {
      return Unsupported(NotSupported(kSingle, "one namespace"));
    }
    return std::nullopt;
  }
  if (!supports(kMulti)) return Unsupported(NotSupported(kMulti, recon::StrCat(ns.size(), " namespaces")));
  for (std::string_view n : ns) {
    if (n == csv_namespace && !supports(kOwn)) return Unsupported(NotSupported(kOwn, "own namespace"));
    if (n.empty())
      return Unsupported(
          "operatorgroup has invalid selected namespaces, NamespaceAll found when |selected namespaces| > 1");
  }
  return std::nullopt;
}

}  // namespace recon::olm
