// What ARO's Geneva logging writes that is fixed for the upstream version
// recon follows (Azure/ARO-RP at bf96a7527b, docs/notes/
// aro-geneva-logging-bf96a75.md): the fluent-bit configuration, byte for
// byte, and the images, pinned by digest under the cluster's registry.
#ifndef RECON_DOMAINS_ARO_GENEVA_CONFIG_H_
#define RECON_DOMAINS_ARO_GENEVA_CONFIG_H_

#include <map>
#include <string>
#include <string_view>

namespace recon::aro {

inline constexpr std::string_view kGenevaUpstream = "Azure/ARO-RP bf96a7527b";

// pkg/operator/controllers/genevalogging/staticfiles/{fluent,parsers}.conf.
std::string_view FluentConf();
std::string_view ParsersConf();

// pkg/util/version/const.go, after "<acrDomain>/".
inline constexpr std::string_view kFluentbitImage =
    "fluentbit:1.9.10-cm20241208@sha256:fa35a491542b1e531b73658da83e47f0f549786a186f00b0cdaffec86100c980";
inline constexpr std::string_view kMdsdImage =
    "distroless/"
    "genevamdsd:mariner_20241212.2@sha256:a7a71af5b631ea5a8ad587a09d8680b17719cae25b95de81e8a4d71f2cc55f45";

// The checksum upstream's dynamichelper puts on a pod template for a
// ConfigMap it mounts: lowercase hex SHA-256 over "<key>: <value>\n" for
// each key in sorted order (workloadhelper.go getHashConfigMap).
std::string ConfigMapHash(const std::map<std::string, std::string>& data);

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_GENEVA_CONFIG_H_
