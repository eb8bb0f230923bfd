// The simulated Azure endpoints' certificates: the leaf verifies against the
// CA for each real host name (and the loopback address a test dials), not
// for another name, and is written where a client's SSL_CERT_FILE points.
#include "adapters/sim/tls_certs.h"

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/store/test_util.h"

namespace recon::sim {
namespace {

constexpr int64_t kNow = 1'796'000'000;  // 2026-11-30

using Cert = std::unique_ptr<X509, decltype(&X509_free)>;

Cert Parse(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                                BIO_free);
  return Cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), X509_free);
}

// X509_verify_cert of `leaf` against `ca` at kNow; X509_V_OK when it holds.
int Verify(X509* ca, X509* leaf) {
  std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(), X509_STORE_free);
  X509_STORE_add_cert(store.get(), ca);
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(),
                                                                      X509_STORE_CTX_free);
  X509_STORE_CTX_init(ctx.get(), store.get(), leaf, nullptr);
  X509_STORE_CTX_set_time(ctx.get(), 0, static_cast<time_t>(kNow));
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_SERVER);
  return X509_verify_cert(ctx.get()) == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx.get());
}

TEST(TlsCerts, TheLeafVerifiesForTheRealHostsOnly) {
  auto m = MakeServingCertificate(AzureServingHosts(), kNow, 30);
  ASSERT_TRUE(m.ok()) << m.status();
  Cert ca = Parse(m->ca_cert_pem), leaf = Parse(m->server_cert_pem);
  ASSERT_TRUE(ca && leaf);
  EXPECT_EQ(Verify(ca.get(), leaf.get()), X509_V_OK);
  for (const char* host : {"management.azure.com", "login.microsoftonline.com", "localhost"})
    EXPECT_EQ(X509_check_host(leaf.get(), host, 0, 0, nullptr), 1) << host;
  EXPECT_EQ(X509_check_ip_asc(leaf.get(), "127.0.0.1", 0), 1);
  EXPECT_NE(X509_check_host(leaf.get(), "evil.example.com", 0, 0, nullptr), 1);
  // Another run's CA does not vouch for this leaf.
  auto other = MakeServingCertificate(AzureServingHosts(), kNow, 30);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(Verify(Parse(other->ca_cert_pem).get(), leaf.get()), X509_V_OK);
  EXPECT_NE(m->server_key_pem.find("BEGIN PRIVATE KEY"), std::string::npos);
}

TEST(TlsCerts, NotValidBeforeOrAfterItsDays) {
  auto m = MakeServingCertificate({"management.azure.com"}, kNow, 1);
  ASSERT_TRUE(m.ok());
  Cert leaf = Parse(m->server_cert_pem);
  time_t after = static_cast<time_t>(kNow + 2 * 86400);
  EXPECT_LT(X509_cmp_time(X509_get0_notAfter(leaf.get()), &after), 0);
  time_t before = static_cast<time_t>(kNow - 2 * 3600);
  EXPECT_GT(X509_cmp_time(X509_get0_notBefore(leaf.get()), &before), 0);
  EXPECT_FALSE(MakeServingCertificate({}, kNow, 1).ok());
}

TEST(TlsCerts, WrittenForSslCertFileWithAPrivateKey) {
  store::testing::TempDir tmp;
  auto m = MakeServingCertificate(AzureServingHosts(), kNow, 30);
  ASSERT_TRUE(m.ok());
  const std::string dir = tmp.Sub("tls");
  ASSERT_TRUE(WriteTlsMaterial(*m, dir).ok());
  std::ifstream in(dir + "/ca.crt");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), m->ca_cert_pem);
  struct stat st {};
  ASSERT_EQ(stat((dir + "/tls.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(WriteTlsMaterial(*m, "/proc/no-such-dir/tls").ok());
}

// An unmodified TLS client (Python's ssl, OpenSSL underneath) that trusts
// only ca.crt completes a handshake with a server using tls.crt/tls.key,
// naming the real host, and refuses the same server under another name.
constexpr char kHandshake[] = R"PY(
import socket, ssl, sys, threading
d = sys.argv[1]
srv = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
srv.load_cert_chain(d + "/tls.crt", d + "/tls.key")
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(4)
port = ls.getsockname()[1]
def serve():
    for _ in range(2):
        c, _ = ls.accept()
        try:
            s = srv.wrap_socket(c, server_side=True); s.sendall(b"ok"); s.close()
        except Exception:
            c.close()
threading.Thread(target=serve, daemon=True).start()
cli = ssl.create_default_context(cafile=d + "/ca.crt")
out = []
for name in ("login.microsoftonline.com", "evil.example.com"):
    try:
        with socket.create_connection(("127.0.0.1", port)) as raw:
            with cli.wrap_socket(raw, server_hostname=name) as s:
                out.append(name + "=" + s.recv(2).decode())
    except ssl.SSLCertVerificationError:
        out.append(name + "=refused")
print(" ".join(out))
)PY";

TEST(TlsCerts, AnUnmodifiedClientTrustingTheCaConnects) {
  if (std::system("python3 -c 'import ssl' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 with ssl not found";
  store::testing::TempDir tmp;
  const std::string dir = tmp.Sub("tls");
  auto m = MakeServingCertificate(AzureServingHosts(), std::time(nullptr), 1);
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(WriteTlsMaterial(*m, dir).ok());
  {
    std::ofstream py(dir + "/handshake.py");
    py << kHandshake;
  }
  std::string cmd = "python3 " + dir + "/handshake.py " + dir + " 2>&1";
  std::unique_ptr<FILE, decltype(&pclose)> pipe(popen(cmd.c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof buf, pipe.get()) != nullptr) out += buf;
  EXPECT_EQ(out, "login.microsoftonline.com=ok evil.example.com=refused\n");
}

}  // namespace
}  // namespace recon::sim
