// TLS over the wire: a small HTTPS API stand-in (python3's ssl module) with
// a certificate from a throwaway CA that also requires a client
// certificate. Verification is on unless the kubeconfig says otherwise;
// CA and client credentials work as PEM data and as files. Skipped with a
// message when openssl or python3 is missing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/world.h"
#include "tests/adapters/k8s/harness.h"
#include "tests/lib/eventually.h"

namespace recon::k8s {
namespace {

namespace fs = std::filesystem;
using namespace testing;

constexpr char kServer[] = R"PY(
import http.server, json, socketserver, ssl, sys, time
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send(self, obj):
        b = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_GET(self):
        if self.path == "/api/v1":
            self.send({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
                {"name": "configmaps", "namespaced": True, "kind": "ConfigMap", "verbs": ["list", "watch"]}]})
        elif "watch=1" in self.path:
            time.sleep(1)
            self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
        else:
            self.send({"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": "5"},
                       "items": [{"metadata": {"name": "a", "namespace": "t", "resourceVersion": "5"}}]})
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
d = sys.argv[1]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(d + "/server.crt", d + "/server.key")
ctx.load_verify_locations(d + "/ca.crt")
ctx.verify_mode = ssl.CERT_REQUIRED
s = S(("127.0.0.1", 0), H)
s.socket = ctx.wrap_socket(s.socket, server_side=True)
print(s.server_address[1], flush=True)
s.serve_forever()
)PY";

bool Sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Tls : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Sh("command -v openssl") || !Sh("command -v python3")) GTEST_SKIP() << "needs openssl and python3";
    dir_ = fs::temp_directory_path() / ("recon-k8s-tls-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::string d = dir_.string();
    std::string ossl = "cd " + d + " && openssl ";
    ASSERT_TRUE(
        Sh(ossl + "req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca"));
    std::ofstream(dir_ / "san.ext") << "subjectAltName=IP:127.0.0.1\n";
    for (std::string who : {"server", "client"}) {
      ASSERT_TRUE(Sh(ossl + "req -newkey rsa:2048 -nodes -keyout " + who + ".key -out " + who +
                     ".csr -subj /CN=" + who));
      ASSERT_TRUE(Sh(ossl + "x509 -req -in " + who +
                     ".csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -out " + who + ".crt" +
                     (who == "server" ? " -extfile san.ext" : "")));
    }
    std::ofstream(dir_ / "server.py") << kServer;
    pid_ = fork();
    if (pid_ == 0) {
      FILE* out = std::fopen((d + "/port").c_str(), "w");
      dup2(fileno(out), 1);
      execlp("python3", "python3", (d + "/server.py").c_str(), d.c_str(), nullptr);
      _exit(127);
    }
    testlib::Eventually(
        [&] {
          std::string p = Slurp(dir_ / "port");
          if (!p.empty() && p.back() == '\n') port_ = p.substr(0, p.size() - 1);
          return !port_.empty();
        },
        std::chrono::seconds(5));
    ASSERT_FALSE(port_.empty()) << "the TLS server did not start";
  }
  void TearDown() override {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  K8sOptions Options() {
    K8sOptions o = TestOptions("https://127.0.0.1:" + port_);
    o.start_timeout_ms = 5000;
    o.reflector.min_watch_timeout_s = 1;
    return o;
  }
  absl::StatusOr<size_t> StartWith(const K8sOptions& o) {
    K8sClusterAdapter a(o, clock_);
    auto first = testing::ObjectsOf(a.Start(world_));
    a.Shutdown();
    if (!first.ok()) return first.status();
    return first->size();
  }

  fs::path dir_;
  pid_t pid_ = -1;
  std::string port_;
  ShiftedClock clock_;
  engine::World world_;
};

TEST_F(Tls, VerifiedWithCaAndClientCertificateAsData) {
  K8sOptions o = Options();
  o.rest.ca_pem = Slurp(dir_ / "ca.crt");
  o.rest.client_cert_pem = Slurp(dir_ / "client.crt");
  o.rest.client_key_pem = Slurp(dir_ / "client.key");
  auto n = StartWith(o);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1u);
}

TEST_F(Tls, VerifiedWithFiles) {
  K8sOptions o = Options();
  o.rest.ca_file = (dir_ / "ca.crt").string();
  o.rest.client_cert_file = (dir_ / "client.crt").string();
  o.rest.client_key_file = (dir_ / "client.key").string();
  auto n = StartWith(o);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1u);
}

TEST_F(Tls, UnknownCaIsRefusedByDefault) {
  K8sOptions o = Options();  // no CA: the system store does not know the test CA
  o.rest.client_cert_pem = Slurp(dir_ / "client.crt");
  o.rest.client_key_pem = Slurp(dir_ / "client.key");
  auto n = StartWith(o);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(std::string(n.status().message()).find("certificate"), std::string::npos) << n.status();
}

TEST_F(Tls, InsecureSkipVerifyOnlyWhenAsked) {
  K8sOptions o = Options();
  o.rest.client_cert_pem = Slurp(dir_ / "client.crt");
  o.rest.client_key_pem = Slurp(dir_ / "client.key");
  o.rest.insecure_skip_tls_verify = true;
  auto n = StartWith(o);
  ASSERT_TRUE(n.ok()) << n.status();
}

TEST_F(Tls, ClientCertificateRequiredByTheServer) {
  K8sOptions o = Options();
  o.rest.ca_pem = Slurp(dir_ / "ca.crt");
  auto n = StartWith(o);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(std::string(n.status().message()).find("discovery /api/v1: transport:"), std::string::npos)
      << n.status();
}

}  // namespace
}  // namespace recon::k8s
