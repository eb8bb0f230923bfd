// What the soak checks of a leg: the log against the cluster (every object
// the agent watches, resourceVersion for resourceVersion; ARM etags), no
// secret or token leaked (--aro-arm), and the leg's figures against the
// limits (convergence, exits, actions applied twice, RSS growth).
#ifndef RECON_SOAK_CHECKS_H_
#define RECON_SOAK_CHECKS_H_

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "soak/soak.h"
#include "store/event_store.h"

namespace recon::soak {

// Compares the objects as the store's events leave them with the server's,
// for the types the agent watches; with `arm_etags`, also the Azure objects
// the agent reads through ARM: the log's last resourceVersion of each is
// the etag ARM serves for it now.
void CheckLogAgainstCluster(absl::StatusOr<std::unique_ptr<store::EventStore>> opened,
                            const std::set<std::string>& watched,
                            const std::vector<std::pair<std::string, std::string>>& server, bool arm_etags,
                            SoakLeg* leg);

// No client secret (plain or base64, the old and the rotated one) and no
// access token the simulated AAD issued in what the agent printed, what
// `recon log export` prints of its store, or its /metrics.
// `store`: where the leg's log is (--store).
void CheckNoSecrets(const SoakOptions& o, const std::filesystem::path& dir, const std::string& store,
                    const std::vector<std::string>& tokens, const std::string& metrics, SoakLeg* leg);

// Appends to `failures` what the leg got wrong.
void CheckLeg(const SoakOptions& o, const SoakLeg& l, std::vector<std::string>* failures);

}  // namespace recon::soak

#endif  // RECON_SOAK_CHECKS_H_
