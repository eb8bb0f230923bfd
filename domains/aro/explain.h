// `recon explain --domain aro`: the notes Reduce adds through Emit::Note
// (explain.cc). They compare the controllers' state after the event with
// NotesBefore, taken before it, so nothing is remembered for them alone.
#ifndef RECON_DOMAINS_ARO_EXPLAIN_H_
#define RECON_DOMAINS_ARO_EXPLAIN_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/event.h"

namespace recon::aro {

// A checker round (internet, service principal) as it was before the event.
struct RoundBefore {
  bool open = false;
  uint64_t seq = 0;    // the event that started it
  size_t targets = 0;  // probes it waits on
};

// What the notes of one event compare with: the state before it.
struct NotesBefore {
  std::string flags;          // the operator-flags note the Cluster as it was gives
  uint64_t remediations = 0;  // SubnetsController::remediations_total()
  std::string subnets_waiting;
  bool subnets_dirty = false;
  RoundBefore internet, sp;
};

// Why a controller ran on this event, in a person's words; `failures` is
// its backoff count, `timer` its own timer.
std::string RoundWhy(const engine::Event& ev, int failures, std::string_view timer);

// "…/virtualNetworks/vnet/subnets/master" → "vnet/master"; an NSG ID →
// "…/<name>"; anything else unchanged.
std::string ShortSubnet(std::string_view id);
std::string ShortResource(std::string_view id);

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_EXPLAIN_H_
