// `recon explain --domain disconnected`: why each Deployment was created or
// updated (which variable or fallback gave its image, what had drifted),
// operator environment changes, deleted instances. Reduce leaves the notes
// of the event it just handled; this copies them onto the timeline.
#include "domains/disconnected/names.h"
#include "domains/disconnected/reducer.h"

namespace recon::disconnected {

void DisconnectedReducer::Explain(const engine::Event& event, const engine::World& world,
                                  const std::vector<engine::ActionRecord>& actions,
                                  engine::Timeline& timeline) const {
  for (const Note& n : notes_)
    timeline.Add(event.seq, event.time_ns, std::string(kDomain), n.subject, n.kind, n.text);
}

}  // namespace recon::disconnected
