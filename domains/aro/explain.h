// What `recon explain --domain aro` remembers between events to tell a
// story (which round a note belongs to, what it last said). Only
// AroReducer::Explain reads or writes it; Reduce never does, and it is not
// in the snapshot: an explain that starts from a snapshot just knows less.
#ifndef RECON_DOMAINS_ARO_EXPLAIN_H_
#define RECON_DOMAINS_ARO_EXPLAIN_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace recon::aro {

struct ExplainMemo {
  std::string flags;  // the last operator-flags summary said

  // AzureSubnets.
  uint64_t remediations_seen = 0;                   // SubnetsController::remediations_total()
  std::map<std::string, std::string> expected;      // action id → the NSG it attaches
  std::map<uint64_t, std::string> subnet_triggers;  // round seq → why it ran
  std::string subnets_waiting;                      // last "waits on" text
  bool subnets_deferred = false;

  // A checker round (internet, service principal) as explain followed it.
  struct Round {
    bool open = false;
    uint64_t seq = 0;
    std::string why;
    std::vector<std::string> targets;
    std::set<std::string> answered;
  };
  Round internet, sp;
};

// "…/virtualNetworks/vnet/subnets/master" → "vnet/master"; an NSG ID →
// "…/<name>"; anything else unchanged.
std::string ShortSubnet(std::string_view id);
std::string ShortResource(std::string_view id);

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_EXPLAIN_H_
