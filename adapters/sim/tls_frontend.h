// A TLS front for one of the simulation's plain-HTTP servers (the ARM and
// AAD one, adapters/sim/arm_server.h): it accepts TLS on its own port with
// a serving certificate (tls_certs.h) and relays each connection's bytes to
// the backend's port on loopback, so clients that only speak https to
// management.azure.com and login.microsoftonline.com (the real ARO
// operator, the Azure SDK) reach the simulation unmodified. One thread
// accepts; one per connection relays. A test and `recon sim serve --arm
// --tls` start it; nothing else depends on it.
#ifndef RECON_ADAPTERS_SIM_TLS_FRONTEND_H_
#define RECON_ADAPTERS_SIM_TLS_FRONTEND_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/sim/tls_certs.h"

namespace recon::sim {

class TlsFrontend {
 public:
  // Listens on host:port (0: any free port) and relays to 127.0.0.1:backend_port.
  static absl::StatusOr<std::unique_ptr<TlsFrontend>> Start(const TlsMaterial& material,
                                                            const std::string& host, int port,
                                                            int backend_port);
  ~TlsFrontend();  // stops accepting, ends every relay, joins the threads
  TlsFrontend(const TlsFrontend&) = delete;
  TlsFrontend& operator=(const TlsFrontend&) = delete;

  int port() const { return port_; }
  std::string url() const;                                    // https://<host>:<port>
  uint64_t handshakes() const { return handshakes_.load(); }  // completed
  uint64_t refused() const { return refused_.load(); }        // failed handshakes

 private:
  TlsFrontend() = default;
  void Accept();
  void Relay(int client);

  void* ctx_ = nullptr;  // SSL_CTX
  std::string host_;
  int port_ = 0, backend_port_ = 0;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // a byte here ends the accept loop and every relay
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> handshakes_{0}, refused_{0};
  std::thread acceptor_;
  struct RelayThread {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::mutex mu_;
  std::vector<RelayThread> relays_;  // finished ones are joined at the next accept
  std::vector<int> open_fds_;
};

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_TLS_FRONTEND_H_
