// Binds and listens an initialized libuv TCP handle on an IPv4 address;
// shared by the agent's health server and the simulated API server.
#ifndef RECON_RUNTIME_TCP_LISTEN_H_
#define RECON_RUNTIME_TCP_LISTEN_H_

#include <uv.h>

#include <string>

#include "absl/status/statusor.h"

namespace recon::runtime {

// Port 0 picks a free port. Returns the bound port; errors name the
// address and libuv's reason.
absl::StatusOr<int> ListenTcp(uv_tcp_t* server, const std::string& host, int port, int backlog,
                              uv_connection_cb on_connection);

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_TCP_LISTEN_H_
