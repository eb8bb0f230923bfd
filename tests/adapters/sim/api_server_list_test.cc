// Lists over HTTP: pagination (and continue tokens expiring with
// compaction) and label and field selectors.
#include <gtest/gtest.h>

#include <vector>

#include "tests/adapters/sim/api_server_test_util.h"

namespace recon::sim::http_testing {
namespace {

TEST_F(ApiServerTest, PaginationAndExpiry) {
  for (const char* n : {"p1", "p2", "p3", "p4", "p5"}) ASSERT_EQ(CreateCm(n).status, 201);
  std::vector<std::string> names;
  std::string cont;
  int pages = 0;
  std::string first_continue;
  do {
    Resp page = Do("GET", CmUrl() + "?limit=2" + (cont.empty() ? "" : "&continue=" + cont));
    ASSERT_EQ(page.status, 200) << page.body;
    Json j = page.json();
    EXPECT_EQ(j["kind"], "ConfigMapList");
    EXPECT_LE(j["items"].size(), 2u);
    for (const Json& i : j["items"]) names.push_back(i["metadata"]["name"]);
    cont = engine::GetString(j, {"metadata", "continue"});
    if (pages == 0) first_continue = cont;
    ++pages;
  } while (!cont.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(names, (std::vector<std::string>{"p1", "p2", "p3", "p4", "p5"}));
  server_->Compact();
  Resp expired = Do("GET", CmUrl() + "?limit=2&continue=" + first_continue);
  EXPECT_EQ(expired.status, 410);
  EXPECT_EQ(expired.json()["reason"], "Expired");
}

TEST_F(ApiServerTest, Selectors) {
  ASSERT_EQ(CreateCm("l1", {{"metadata", {{"labels", {{"app", "a"}, {"tier", "web"}}}}}}).status, 201);
  ASSERT_EQ(CreateCm("l2", {{"metadata", {{"labels", {{"app", "b"}}}}}}).status, 201);
  ASSERT_EQ(CreateCm("l3").status, 201);
  auto names = [&](const std::string& query) {
    std::vector<std::string> out;
    Json items = Do("GET", CmUrl() + "?" + query).json()["items"];
    for (const Json& i : items) out.push_back(i["metadata"]["name"]);
    return out;
  };
  EXPECT_EQ(names("labelSelector=app%3Da"), std::vector<std::string>{"l1"});
  EXPECT_EQ(names("labelSelector=app%20in%20(a,b)"), (std::vector<std::string>{"l1", "l2"}));
  EXPECT_EQ(names("labelSelector=!app"), std::vector<std::string>{"l3"});
  EXPECT_EQ(names("labelSelector=app!%3Da"), (std::vector<std::string>{"l2", "l3"}));
  EXPECT_EQ(names("fieldSelector=metadata.name%3Dl2"), std::vector<std::string>{"l2"});
  EXPECT_EQ(Do("GET", CmUrl() + "?fieldSelector=spec.x%3D1").status, 400);
  // All namespaces: /api/v1/configmaps.
  Resp all = Do("GET", U("/api/v1/configmaps"));
  EXPECT_EQ(all.json()["items"].size(), 3u);
}

}  // namespace
}  // namespace recon::sim::http_testing
