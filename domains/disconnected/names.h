// Names the DisconnectedFriendlyApp operator uses (the simple-disconnected-
// operator example project: api/v1alpha1, image/image.go, controllers/).
#ifndef RECON_DOMAINS_DISCONNECTED_NAMES_H_
#define RECON_DOMAINS_DISCONNECTED_NAMES_H_

#include <string_view>

namespace recon::disconnected {

inline constexpr std::string_view kDomain = "disconnected";

inline constexpr std::string_view kGroup = "tools.opdev.io";
inline constexpr std::string_view kApiVersion = "tools.opdev.io/v1alpha1";
inline constexpr std::string_view kKind = "DisconnectedFriendlyApp";

inline constexpr std::string_view kAppsGroup = "apps";
inline constexpr std::string_view kDeploymentKind = "Deployment";

// The operator's environment and its hard-coded fallbacks (image/image.go).
inline constexpr std::string_view kEnvBusyBox = "DFA_BUSYBOX_IMAGE";
inline constexpr std::string_view kEnvSleeper = "DFA_SLEEPER_IMAGE";
inline constexpr std::string_view kDefaultBusyBox = "docker.io/busybox:latest";
inline constexpr std::string_view kDefaultSleeper = "docker.io/ubuntu:latest";

// The Cluster fact that carries the operator's environment.
inline constexpr std::string_view kEnvFact = "operatorEnv";

// The periodic full sync (option resyncPeriod).
inline constexpr std::string_view kResyncTimer = "disconnected/resync";

}  // namespace recon::disconnected

#endif  // RECON_DOMAINS_DISCONNECTED_NAMES_H_
