// The olm operator's install-mode check of a CSV against its OperatorGroup's
// targets (reference olm-operator.md §B.1.7; upstream's
// InstallModeSet.Supports and NewInstallModeSet at v0.24.0): which failure,
// with upstream's reason and message, or none.
#ifndef RECON_DOMAINS_OLM_CSV_INSTALL_MODES_H_
#define RECON_DOMAINS_OLM_CSV_INSTALL_MODES_H_

#include <optional>
#include <string>
#include <string_view>

#include "engine/json.h"

namespace recon::olm {

// A CSV's phase change the check asks for: always Failed.
struct InstallModeFailure {
  std::string reason;   // NoTargetNamespaces, InvalidInstallModes, UnsupportedOperatorGroup
  std::string message;  // upstream's text
};

// `install_modes` is the CSV's spec.installModes; `targets` its
// olm.targetNamespaces annotation (nullopt: missing). nullopt when the CSV
// may run in `csv_namespace` watching those targets.
std::optional<InstallModeFailure> CheckInstallModes(const engine::Json& install_modes,
                                                    std::string_view csv_namespace,
                                                    std::optional<std::string_view> targets);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_INSTALL_MODES_H_
