// One operand Deployment of a DisconnectedFriendlyApp (busybox-<name> or
// sleeper-<name>), as upstream's deployment reconcilers build it, and how
// an observed Deployment differs from it.
#ifndef RECON_DOMAINS_DISCONNECTED_OPERAND_H_
#define RECON_DOMAINS_DISCONNECTED_OPERAND_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/json.h"
#include "engine/world.h"

namespace recon::disconnected {

struct Operand {
  std::string_view app;           // "busybox" or "sleeper": name prefix, label, container
  std::string_view replicas_key;  // spec.busyBoxReplicas / spec.sleeperReplicas
  std::string_view env_var, fallback;
};

// Both operands, in the order they are reconciled.
const std::vector<Operand>& Operands();

std::string OperandName(const Operand& op, std::string_view instance);

// spec.<replicas_key>, 1 when absent (upstream's BusyBoxReplicas()).
int64_t Replicas(const engine::Json& instance, const Operand& op);

// The Deployment upstream creates: labels app=<app>, selector on it, one
// container running "/bin/sleep infinity" with imagePullPolicy Always, and
// a controller ownerReference to the instance.
engine::Json DesiredDeployment(const engine::Object& instance, const Operand& op, std::string_view image);

// What an update would change on `observed`, in words ("image a -> b",
// "replicas 1 -> 2"); empty when it is in sync. Only the fields upstream
// sets are compared: server-side defaults are not drift.
std::vector<std::string> Drift(const engine::Json& observed, const engine::Json& desired);

// `observed` with the desired fields laid over it (upstream merges its
// desired object onto the existing one): other labels, annotations and
// server defaults stay; status is dropped (not writable here).
engine::Json MergeForUpdate(const engine::Json& observed, const engine::Json& desired);

// The image of the operand's container in a Deployment, "" when absent.
std::string ContainerImage(const engine::Json& deployment, std::string_view container);

}  // namespace recon::disconnected

#endif  // RECON_DOMAINS_DISCONNECTED_OPERAND_H_
