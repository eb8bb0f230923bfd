#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "gtest/gtest.h"
#include "runtime/http_server.h"
#include "runtime/metrics.h"

namespace recon::runtime {
namespace {

void Fill(Metrics& m) {
  m.Declare("recon_events_appended_total", "counter", "Events appended to the log.");
  m.Declare("recon_queue_depth", "gauge", "Actions waiting in the dispatcher queue.");
  m.Declare("recon_append_latency_seconds", "histogram", "Store append latency.", {0.001, 0.01, 0.1, 1});
  m.Declare("recon_actions_total", "counter", "Actions dispatched, by domain, verb and result.");
  m.Add("recon_events_appended_total", {}, 42);
  m.Set("recon_queue_depth", {}, 3);
  m.Observe("recon_append_latency_seconds", {}, 0.004);
  m.Observe("recon_append_latency_seconds", {}, 0.2);
  m.Add("recon_actions_total", {{"domain", "samples"}, {"verb", "create"}, {"result", "ok"}}, 5);
  m.Add("recon_actions_total", {{"domain", "samples"}, {"verb", "update"}, {"result", "conflict"}});
}

std::string SampleText() {
  Metrics m;
  Fill(m);
  return m.Render();
}

TEST(Metrics, RendersPrometheusTextInStableOrder) {
  std::string text = SampleText();
  EXPECT_NE(text.find("# TYPE recon_events_appended_total counter\nrecon_events_appended_total 42\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("recon_append_latency_seconds_bucket{le=\"0.01\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("recon_append_latency_seconds_bucket{le=\"+Inf\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("recon_actions_total{domain=\"samples\",result=\"ok\",verb=\"create\"} 5\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text, SampleText());
}

TEST(Metrics, PassesPromtoolCheck) {
  if (system("command -v promtool >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "promtool not installed (Debian: prometheus)";
  auto path = std::filesystem::temp_directory_path() / ("recon-metrics-" + std::to_string(getpid()) + ".txt");
  std::ofstream(path) << SampleText();
  std::string cmd = "promtool check metrics < " + path.string() + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof(buf), p)) out += buf;
  int rc = pclose(p);
  EXPECT_EQ(rc, 0) << out;
  std::filesystem::remove(path);
}

std::string Get(int port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return "connect failed";
  (void)!write(fd, request.data(), request.size());
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, n);
  close(fd);
  return out;
}

TEST(HttpServer, ServesRoutesOverRealSockets) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  Metrics m;
  Fill(m);
  HttpServer server(&loop, [&](const std::string& method, const std::string& path) -> HttpResponse {
    if (method != "GET") return {405, "text/plain", "method not allowed\n"};
    if (path == "/healthz") return {200, "text/plain", "ok\n"};
    if (path == "/metrics") return {200, "text/plain; version=0.0.4", m.Render()};
    return {404, "text/plain", "not found\n"};
  });
  auto port = server.Listen("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status();
  uv_async_t stop;
  uv_async_init(&loop, &stop, [](uv_async_t* a) { uv_stop(a->loop); });
  std::thread loop_thread([&] { uv_run(&loop, UV_RUN_DEFAULT); });

  std::string health = Get(*port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(health.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << health;
  EXPECT_NE(health.find("\r\n\r\nok\n"), std::string::npos);
  std::string metrics = Get(*port, "GET /metrics?x=1 HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(metrics.find("recon_events_appended_total 42"), std::string::npos) << metrics;
  EXPECT_EQ(Get(*port, "GET /nope HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404", 0), 0u);
  EXPECT_EQ(Get(*port, "POST /healthz HTTP/1.1\r\nContent-Length: 0\r\n\r\n").rfind("HTTP/1.1 405", 0), 0u);
  EXPECT_EQ(Get(*port, "garbage\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);

  uv_async_send(&stop);
  loop_thread.join();
  server.Close();
  uv_close(reinterpret_cast<uv_handle_t*>(&stop), nullptr);
  uv_run(&loop, UV_RUN_DEFAULT);
  EXPECT_EQ(uv_loop_close(&loop), 0);
}

}  // namespace
}  // namespace recon::runtime
