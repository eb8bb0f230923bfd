// The Kubernetes protobuf wire form of the few built-in objects kubectl
// sends as protobuf (`kubectl create namespace|configmap|secret`): the
// envelope (magic "k8s\0", then a runtime.Unknown with typeMeta and raw)
// and the Namespace, ConfigMap and Secret messages with the ObjectMeta
// fields a client sets. Decoded into the JSON a JSON client would send.
#ifndef RECON_ADAPTERS_SIM_PROTOBUF_H_
#define RECON_ADAPTERS_SIM_PROTOBUF_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "engine/json.h"

namespace recon::sim {

// InvalidArgument for bytes that are not a well-formed envelope or message;
// Unimplemented for a kind this decoder does not know.
absl::StatusOr<engine::Json> DecodeProtobufObject(std::string_view bytes);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_PROTOBUF_H_
