#include "adapters/sim/tls_frontend.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/strings.h"

namespace recon::sim {
namespace {

SSL_CTX* Ctx(void* p) { return static_cast<SSL_CTX*>(p); }

absl::Status Errno(std::string_view what) {
  return absl::InternalError(recon::StrCat("tls front: ", what, ": ", std::strerror(errno)));
}

int ConnectBackend(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<TlsFrontend>> TlsFrontend::Start(const TlsMaterial& material,
                                                                const std::string& host, int port,
                                                                int backend_port) {
  std::unique_ptr<TlsFrontend> f(new TlsFrontend());
  f->host_ = host;
  f->backend_port_ = backend_port;
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return absl::InternalError("tls front: SSL_CTX_new failed");
  f->ctx_ = ctx;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(
      BIO_new_mem_buf(material.server_cert_pem.data(), static_cast<int>(material.server_cert_pem.size())),
      BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
      BIO_new_mem_buf(material.server_key_pem.data(), static_cast<int>(material.server_key_pem.size())),
      BIO_free);
  X509* cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
  bool loaded = cert != nullptr && key != nullptr && SSL_CTX_use_certificate(ctx, cert) == 1 &&
                SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!loaded) return absl::InvalidArgumentError("tls front: the serving certificate or key does not load");

  if (pipe2(f->wake_, O_CLOEXEC) != 0) return Errno("pipe");
  f->listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (f->listen_fd_ < 0) return Errno("socket");
  int one = 1;
  setsockopt(f->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
    return absl::InvalidArgumentError(recon::StrCat("tls front: \"", host, "\" is not an IPv4 address"));
  }
  if (bind(f->listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return Errno("bind");
  if (listen(f->listen_fd_, 64) != 0) return Errno("listen");
  socklen_t len = sizeof a;
  getsockname(f->listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  f->port_ = ntohs(a.sin_port);
  f->acceptor_ = std::thread([p = f.get()] { p->Accept(); });
  return f;
}

TlsFrontend::~TlsFrontend() {
  stopping_ = true;
  if (wake_[1] >= 0) (void)!write(wake_[1], "x", 1);
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<RelayThread> relays;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);
    relays.swap(relays_);
  }
  for (auto& r : relays) r.thread.join();
  if (listen_fd_ >= 0) close(listen_fd_);
  for (int fd : wake_)
    if (fd >= 0) close(fd);
  if (ctx_ != nullptr) SSL_CTX_free(Ctx(ctx_));
}

std::string TlsFrontend::url() const { return recon::StrCat("https://", host_, ":", port_); }

void TlsFrontend::Accept() {
  while (!stopping_) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (poll(p, 2, -1) < 0 && errno != EINTR) return;
    if (p[1].revents != 0 || stopping_) return;
    if ((p[0].revents & POLLIN) == 0) continue;
    int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    // A long-lived server accepts many connections: join the relays that ended.
    for (auto it = relays_.begin(); it != relays_.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = relays_.erase(it);
      } else {
        ++it;
      }
    }
    open_fds_.push_back(client);
    auto done = std::make_shared<std::atomic<bool>>(false);
    relays_.push_back({std::thread([this, client, done] {
                         Relay(client);
                         done->store(true);
                       }),
                       done});
  }
}

void TlsFrontend::Relay(int client) {
  SSL* ssl = SSL_new(Ctx(ctx_));
  int backend = -1;
  SSL_set_fd(ssl, client);
  if (SSL_accept(ssl) != 1) {
    ++refused_;
    ERR_clear_error();
  } else {
    ++handshakes_;
    backend = ConnectBackend(backend_port_);
  }
  if (backend >= 0) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_fds_.push_back(backend);
    }
    char buf[16384];
    bool open = true;
    while (open && !stopping_) {
      // Bytes OpenSSL already decrypted are not on the socket any more.
      if (SSL_pending(ssl) == 0) {
        pollfd p[3] = {{client, POLLIN, 0}, {backend, POLLIN, 0}, {wake_[0], POLLIN, 0}};
        if (poll(p, 3, -1) < 0 && errno != EINTR) break;
        if (p[2].revents != 0) break;
        if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
          ssize_t n = read(backend, buf, sizeof buf);
          if (n <= 0 || SSL_write(ssl, buf, static_cast<int>(n)) <= 0) break;
          continue;
        }
        if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      }
      int n = SSL_read(ssl, buf, sizeof buf);
      open = n > 0 && WriteAll(backend, buf, static_cast<size_t>(n));
    }
    SSL_shutdown(ssl);
  }
  SSL_free(ssl);
  std::lock_guard<std::mutex> lock(mu_);
  for (int fd : {client, backend}) {
    if (fd < 0) continue;
    open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
    close(fd);
  }
}

}  // namespace recon::sim
