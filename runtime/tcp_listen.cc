#include "runtime/tcp_listen.h"

#include "base/strings.h"

namespace recon::runtime {

absl::StatusOr<int> ListenTcp(uv_tcp_t* server, const std::string& host, int port, int backlog,
                              uv_connection_cb on_connection) {
  sockaddr_in addr;
  if (int rc = uv_ip4_addr(host.c_str(), port, &addr); rc != 0) {
    return absl::InvalidArgumentError(recon::StrCat("listen address ", host, ": ", uv_strerror(rc)));
  }
  if (int rc = uv_tcp_bind(server, reinterpret_cast<const sockaddr*>(&addr), 0); rc != 0) {
    return absl::UnavailableError(recon::StrCat("bind ", host, ":", port, ": ", uv_strerror(rc)));
  }
  if (int rc = uv_listen(reinterpret_cast<uv_stream_t*>(server), backlog, on_connection); rc != 0) {
    return absl::UnavailableError(recon::StrCat("listen ", host, ":", port, ": ", uv_strerror(rc)));
  }
  sockaddr_storage bound;
  int len = sizeof(bound);
  uv_tcp_getsockname(server, reinterpret_cast<sockaddr*>(&bound), &len);
  return ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

}  // namespace recon::runtime
