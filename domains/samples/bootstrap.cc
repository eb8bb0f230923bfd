// Creating the default Config `cluster` (reference §5): the ist→image
// ConfigMap first, then the Config with our finalizer, Managed unless the
// samples registry cannot be reached.
#include <algorithm>

#include "base/strings.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"
#include "domains/samples/registry.h"
#include "engine/time_format.h"

namespace recon::samples {
namespace {

bool KnownArch(std::string_view a) {
  return a == "x86_64" || a == "amd64" || a == "arm64" || a == "ppc64le" || a == "s390x";
}

// The arch as the Config spells it. A log without the fact is taken as
// x86_64 (the inventory given is the only content there is).
std::string BootstrapArch(const World& world) {
  std::string arch = world.Fact("architecture");
  if (arch.empty() || arch == "amd64") return "x86_64";
  return arch;
}

}  // namespace

void SamplesReducer::Bootstrap(Ctx& c) {
  if (c.world.Get(kSamplesGroup, "Config", "", kConfigName) != nullptr) return;
  // The Config may only not be listed yet (World::Synced): the Cluster
  // event that ends the initial lists bootstraps if it is still missing.
  if (!c.world.Synced()) return;
  auto inv = GetInventory(c.world);
  MaintainIstToImage(c, inv.ok() ? *inv : nullptr);

  std::string arch = BootstrapArch(c.world);
  std::string_view mgmt = kManaged;
  const engine::Object* image_config = c.world.Get(kConfigGroup, "Image", "", "cluster");
  const engine::Object* proxy = c.world.Get(kConfigGroup, "Proxy", "", "cluster");
  const auto& facts = c.world.facts();
  if (!KnownArch(arch)) {
    mgmt = kRemoved;
  } else if (c.world.FactBool("ipv6")) {
    mgmt = kRemoved;  // the TBR flag is not set on this path
  } else if (image_config && (ImageConfigBlocks(image_config->json(), "registry.redhat.io") ||
                              ImageConfigBlocks(image_config->json(), "quay.io"))) {
    mgmt = kRemoved;  // nor on this one
  } else if (proxy && (!engine::GetString(proxy->json(), {"status", "httpsProxy"}).empty() ||
                       !engine::GetString(proxy->json(), {"status", "httpProxy"}).empty())) {
    mgmt = kManaged;  // a proxy is taken as access, without probing
  } else if (facts.contains("disconnected") && facts["disconnected"].is_boolean()) {
    if (facts["disconnected"].get<bool>()) {
      mgmt = kRemoved;
      st_.tbr_unreachable = true;
    }
  } else {
    // Nobody has said whether registry.redhat.io answers: ask, and decide
    // when the Probe event comes back.
    if (!st_.awaiting_registry_probe) {
      st_.registry_probe_since_ns = c.now;
      c.emit.Probe(kRegistryProbe, kRegistryProbeTarget);
      c.emit.Note(
          std::string(kExplainSubject), "wait",
          recon::StrCat("no Config yet and no cluster fact says whether the samples registry answers: "
                        "waiting on the probe ",
                        kRegistryProbe, " -> ", kRegistryProbeTarget, " to bootstrap Managed or Removed"));
    }
    st_.awaiting_registry_probe = true;
    return;
  }
  CreateDefaultConfig(c, mgmt);
}

void SamplesReducer::OnRegistryProbe(Ctx& c) {
  if (!st_.awaiting_registry_probe) return;
  if (c.world.Get(kSamplesGroup, "Config", "", kConfigName) != nullptr) {
    st_.awaiting_registry_probe = false;
    return;
  }
  if (c.ev.ok) {
    CreateDefaultConfig(c, kManaged);
    return;
  }
  // A failed probe is asked again at the next 20 s tick from the first one
  // (upstream's poll ticks whatever an attempt took); the decision for
  // Removed comes when the 5 minutes are up, as the poll times out, not at
  // the last failed answer.
  const int64_t since = st_.registry_probe_since_ns;
  const int64_t deadline = since + kRegistryProbeForNs;
  const int64_t ticks = c.now < since ? 1 : (c.now - since) / kRegistryProbeEveryNs + 1;
  const int64_t next = std::min(since + ticks * kRegistryProbeEveryNs, deadline);
  if (next <= c.now) {
    st_.tbr_unreachable = true;
    CreateDefaultConfig(c, kRemoved);
    return;
  }
  c.emit.SetTimer(kRegistryProbeTimer, next);
  const std::string failed =
      recon::StrCat("the probe ", kRegistryProbe, " -> ", kRegistryProbeTarget, " failed (", c.ev.detail, "): ");
  c.emit.Note(std::string(kExplainSubject), "wait",
              next == deadline
                  ? recon::StrCat(failed, "the 5 minutes are up before the next try; bootstrap Removed at ",
                                  engine::FormatRfc3339Seconds(deadline))
                  : recon::StrCat(failed, "asked again at ", engine::FormatRfc3339Seconds(next),
                                  ", bootstrap Removed at ", engine::FormatRfc3339Seconds(deadline),
                                  " if it never answers"));
}

void SamplesReducer::OnRegistryProbeTimer(Ctx& c) {
  if (!st_.awaiting_registry_probe) return;
  if (c.world.Get(kSamplesGroup, "Config", "", kConfigName) != nullptr) {
    st_.awaiting_registry_probe = false;
    return;
  }
  if (c.now >= st_.registry_probe_since_ns + kRegistryProbeForNs) {
    st_.tbr_unreachable = true;
    CreateDefaultConfig(c, kRemoved);
    return;
  }
  c.emit.Probe(kRegistryProbe, kRegistryProbeTarget);
}

void SamplesReducer::CreateDefaultConfig(Ctx& c, std::string_view mgmt) {
  st_.awaiting_registry_probe = false;
  st_.registry_probe_since_ns = 0;
  Json cfg = Json::object();
  cfg["apiVersion"] = kSamplesApiVersion;
  cfg["kind"] = "Config";
  cfg["metadata"] = Json{{"name", kConfigName}, {"finalizers", Json::array({kFinalizer})}};
  Json spec = Json::object();
  spec["managementState"] = mgmt;
  spec["architectures"] = Json::array({BootstrapArch(c.world)});
  // No empty skippedImagestreams/skippedTemplates: upstream's Go client
  // omits empty lists (omitempty), as its create in an audit log shows.
  cfg["spec"] = std::move(spec);
  size_t before = c.emit.count();
  Write(c, "create", cfg);
  if (c.emit.count() != before) NoteBootstrap(c, mgmt);
}

}  // namespace recon::samples
