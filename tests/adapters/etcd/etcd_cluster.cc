#include "tests/adapters/etcd/etcd_cluster.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "adapters/etcd/etcd_kv.h"
#include "base/strings.h"
#include "tests/lib/eventually.h"

namespace recon::etcd::testing {
namespace {

// A port nothing listens on now (the kernel's choice for port 0).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof(a);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

std::string FindEtcd() {
  if (const char* env = getenv("RECON_ETCD_BINARY"); env && *env) return env;
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/sbin"}) {
    std::string p = StrCat(dir, "/etcd");
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

absl::Status Run(const std::string& command) {
  if (std::system(command.c_str()) != 0) {
    return absl::InternalError(StrCat("failed: ", command, " (Debian's openssl: scripts/setup installs it)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> EtcdCluster::MakeCa(const std::string& dir, const std::string& name) {
  const std::string base = StrCat(dir, "/", name);
  if (auto s = Run(StrCat("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=", name, " -keyout ",
                          base, "-key.pem -out ", base, ".pem 2>", base, ".log"));
      !s.ok())
    return s;
  return StrCat(base, ".pem");
}

absl::StatusOr<std::unique_ptr<EtcdCluster>> EtcdCluster::Start(int members, bool tls) {
  std::unique_ptr<EtcdCluster> c(new EtcdCluster());
  c->binary_ = FindEtcd();
  if (c->binary_.empty()) {
    return absl::FailedPreconditionError(
        "no etcd binary (/usr/bin/etcd): scripts/setup installs Debian's etcd-server, or set "
        "RECON_ETCD_BINARY");
  }
  std::string tmpl = (std::filesystem::temp_directory_path() / "recon-etcd-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return absl::InternalError("mkdtemp failed");
  c->root_ = tmpl;
  if (tls) {
    auto ca = MakeCa(c->root_, "ca");
    if (!ca.ok()) return ca.status();
    c->tls_ = true;
    c->ca_file_ = *ca;
    c->cert_file_ = StrCat(c->root_, "/server.pem");
    c->key_file_ = StrCat(c->root_, "/server-key.pem");
    const std::string& r = c->root_;
    std::ofstream(StrCat(r, "/san.cnf")) << "subjectAltName=IP:127.0.0.1\n";
    if (auto s = Run(StrCat("openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout ", c->key_file_,
                            " -out ", r, "/server.csr 2>>", r, "/ca.log && openssl x509 -req -days 2 -in ", r,
                            "/server.csr -CA ", c->ca_file_, " -CAkey ", r, "/ca-key.pem -CAcreateserial -out ",
                            c->cert_file_, " -extfile ", r, "/san.cnf 2>>", r, "/ca.log"));
        !s.ok())
      return s;
  }
  for (int i = 0; i < members; ++i) {
    Member m;
    m.name = StrCat("m", i);
    m.dir = StrCat(c->root_, "/", m.name);
    m.log = StrCat(c->root_, "/", m.name, ".log");
    m.client_port = FreePort();
    m.peer_port = FreePort();
    StrAppend(&c->initial_cluster_, i ? "," : "", m.name, "=http://127.0.0.1:", m.peer_port);
    c->members_.push_back(m);
  }
  for (int i = 0; i < members; ++i) {
    if (auto s = c->Spawn(i, true); !s.ok()) return s;
  }
  if (auto s = c->WaitHealthy(); !s.ok()) return s;
  return c;
}

EtcdCluster::~EtcdCluster() {
  for (int i = 0; i < size(); ++i) Kill(i);
  std::error_code ec;
  if (!root_.empty()) std::filesystem::remove_all(root_, ec);
}

std::vector<std::string> EtcdCluster::endpoints() const {
  std::vector<std::string> out;
  for (const Member& m : members_) out.push_back(StrCat(tls_ ? "https" : "http", "://127.0.0.1:", m.client_port));
  return out;
}

std::string EtcdCluster::hosts() const {
  std::string out;
  for (size_t i = 0; i < members_.size(); ++i)
    StrAppend(&out, i ? "," : "", "127.0.0.1:", members_[i].client_port);
  return out;
}

absl::Status EtcdCluster::Spawn(int i, bool fresh) {
  Member& m = members_[i];
  std::vector<std::string> args = {
      binary_,
      StrCat("--name=", m.name),
      StrCat("--data-dir=", m.dir),
      StrCat("--listen-client-urls=", endpoints()[i]),
      StrCat("--advertise-client-urls=", endpoints()[i]),
      StrCat("--listen-peer-urls=http://127.0.0.1:", m.peer_port),
      StrCat("--initial-advertise-peer-urls=http://127.0.0.1:", m.peer_port),
      StrCat("--initial-cluster=", initial_cluster_),
      StrCat("--initial-cluster-state=", fresh ? "new" : "existing"),
      "--initial-cluster-token=recon-test",
      // Loopback: elect within a second of a member's death.
      "--heartbeat-interval=50",
      "--election-timeout=500",
      "--logger=zap",
  };
  if (tls_) {
    args.push_back(StrCat("--cert-file=", cert_file_));
    args.push_back(StrCat("--key-file=", key_file_));
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the test program
    if (getppid() != parent) _exit(1);
    int fd = open(m.log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  m.pid = pid;
  return absl::OkStatus();
}

void EtcdCluster::Kill(int i) {
  Member& m = members_[i];
  if (m.pid <= 0) return;
  kill(m.pid, SIGKILL);
  waitpid(m.pid, nullptr, 0);
  m.pid = -1;
}

absl::Status EtcdCluster::Restart(int i) {
  Kill(i);
  return Spawn(i, false);
}

absl::Status EtcdCluster::WaitHealthy() {
  std::vector<std::string> up;
  for (int i = 0; i < size(); ++i) {
    if (running(i)) up.push_back(endpoints()[i]);
  }
  absl::Status last = absl::UnavailableError("not asked yet");
  bool ok = testlib::Eventually(
      [&] {
        for (const std::string& endpoint : up) {
          EtcdConfig config;
          config.endpoints = {endpoint};
          config.ca_file = ca_file_;
          config.request_timeout_ms = 2'000;
          auto kv = EtcdKv::Connect(config);
          if (!kv.ok()) {
            last = kv.status();
            return false;
          }
          auto put = (*kv)->Txn({}, {store::TxnOp::Put("health", endpoint)});
          if (!put.ok()) {
            last = put.status();
            return false;
          }
        }
        return true;
      },
      std::chrono::seconds(60), std::chrono::milliseconds(100));
  if (ok) return absl::OkStatus();
  return absl::UnavailableError(StrCat("the etcd cluster did not come up: ", last.message(),
                                       "; m0's log ends: ", Tail(members_[0].log)));
}

}  // namespace recon::etcd::testing
