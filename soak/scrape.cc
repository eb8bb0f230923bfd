#include "soak/scrape.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "base/strings.h"

namespace recon::soak {

bool Alive(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, WNOHANG) == 0;
}

int64_t RssKb(pid_t pid) {
  std::ifstream in(recon::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return 0;
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

std::string LocalGet(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    std::string req =
        recon::StrCat("GET ", path, " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    if (send(fd, req.data(), req.size(), 0) == static_cast<ssize_t>(req.size())) {
      char buf[16384];
      for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) out.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  return out;
}

int64_t QueueDepth(int port) {
  std::string m = LocalGet(port, "/metrics");
  size_t at = m.find("\nrecon_queue_depth ");
  if (at == std::string::npos) return -1;
  return std::atoll(m.c_str() + at + 19);
}

int64_t GaugeKb(const std::string& metrics, const std::string& family) {
  int64_t total = -1;
  const std::string start = recon::StrCat("\n", family);
  for (size_t at = metrics.find(start); at != std::string::npos; at = metrics.find(start, at + 1)) {
    size_t name_end = at + start.size();
    if (name_end >= metrics.size() || (metrics[name_end] != '{' && metrics[name_end] != ' ')) continue;
    size_t sp = metrics.find(' ', metrics[name_end] == '{' ? metrics.find('}', name_end) : name_end);
    if (sp == std::string::npos) break;
    total = std::max<int64_t>(total, 0) + static_cast<int64_t>(std::atof(metrics.c_str() + sp + 1) / 1024);
  }
  return total;
}

}  // namespace recon::soak
