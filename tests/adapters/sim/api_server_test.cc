// The simulated API server over real HTTP (libcurl easy): discovery, CRUD
// and its 409s, patches, the status subresource, finalizers, pagination,
// watches (history, bookmarks, 410, drops, timeouts), injected failures,
// ImageStreamImports and the probe endpoint.
#include "adapters/sim/api_server.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "absl/strings/escaping.h"
#include "adapters/sim/scenario.h"
#include "base/strings.h"
#include "engine/json.h"
#include "tests/lib/eventually.h"

namespace recon::sim {
namespace {

using engine::Json;

struct Resp {
  long status = 0;
  std::string body;
  std::string headers;
  CURLcode code = CURLE_OK;
  Json json() const {
    auto j = engine::ParseJson(body);
    return j.ok() ? *j : Json();
  }
};

size_t Append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// One request. Timeouts are generous: they only stop a hung test.
Resp Do(const std::string& method, const std::string& url, const std::string& body = "",
        const std::string& content_type = "application/json", const std::string& extra_header = "") {
  Resp r;
  CURL* c = curl_easy_init();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, Append);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.headers);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
  curl_slist* hdrs = nullptr;
  hdrs = curl_slist_append(hdrs, ("Content-Type: " + content_type).c_str());
  if (!extra_header.empty()) hdrs = curl_slist_append(hdrs, extra_header.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
  if (!body.empty()) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  r.code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(hdrs);
  curl_easy_cleanup(c);
  return r;
}

// A watch: reads JSON lines until `enough` says so (or the stream ends).
struct WatchResult {
  std::vector<Json> events;
  CURLcode code = CURLE_OK;
  long status = 0;
};

struct WatchState {
  std::string buf;
  std::vector<Json> events;
  std::function<bool(const std::vector<Json>&)> enough;
};

size_t OnWatchData(char* data, size_t size, size_t n, void* p) {
  auto* st = static_cast<WatchState*>(p);
  st->buf.append(data, size * n);
  for (size_t nl; (nl = st->buf.find('\n')) != std::string::npos;) {
    auto j = engine::ParseJson(std::string_view(st->buf).substr(0, nl));
    st->buf.erase(0, nl + 1);
    if (j.ok()) st->events.push_back(*j);
  }
  if (st->enough && st->enough(st->events)) return 0;  // stop reading: we have what we wanted
  return size * n;
}

WatchResult Watch(const std::string& url, std::function<bool(const std::vector<Json>&)> enough) {
  WatchState st;
  st.enough = std::move(enough);
  CURL* c = curl_easy_init();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnWatchData);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &st);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
  WatchResult r;
  r.code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_easy_cleanup(c);
  r.events = std::move(st.events);
  return r;
}

std::function<bool(const std::vector<Json>&)> AtLeast(size_t n) {
  return [n](const std::vector<Json>& e) { return e.size() >= n; };
}

using testlib::Eventually;  // network waits only

Scenario SamplesScenario() {
  auto s = LoadScenario(RECON_SOURCE_DIR "/tests/adapters/sim/testdata/serve-samples.json");
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : Scenario{};
}

class ApiServerTest : public ::testing::Test {
 protected:
  void StartServer(ServeOptions opts = {}, Scenario scenario = SamplesScenario()) {
    opts.speed = opts.speed == 1 ? 1000 : opts.speed;  // 1s import latency = 1ms real
    auto s = ApiServer::Start(scenario, opts);
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = std::move(*s);
    base_ = server_->url();
  }
  void SetUp() override { StartServer(); }
  std::string U(const std::string& path) const { return base_ + path; }
  std::string CmUrl(const std::string& name = "") const {
    return U("/api/v1/namespaces/demo/configmaps" + (name.empty() ? "" : "/" + name));
  }
  Resp CreateCm(const std::string& name, const Json& extra = Json::object()) {
    Json cm = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", name}, {"namespace", "demo"}}},
               {"data", {{"k", "v"}}}};
    cm.merge_patch(extra);
    return Do("POST", CmUrl(), engine::Dump(cm));
  }

  std::unique_ptr<ApiServer> server_;
  std::string base_;
};

TEST_F(ApiServerTest, Discovery) {
  Resp v = Do("GET", U("/version"));
  ASSERT_EQ(v.status, 200);
  EXPECT_EQ(v.json()["major"], "1");
  Resp api = Do("GET", U("/api"));
  EXPECT_EQ(api.json()["versions"][0], "v1");
  Resp apis = Do("GET", U("/apis"));
  ASSERT_EQ(apis.status, 200);
  bool samples = false, olm_versions = false;
  Json groups = apis.json()["groups"];
  for (const Json& g : groups) {
    if (g["name"] == "samples.operator.openshift.io") samples = true;
    if (g["name"] == "operators.coreos.com") {
      // The real CRDs serve v1alpha1, v1alpha2, v1 and v2 of the group; the
      // apiserver orders them by Kubernetes version priority and prefers v2.
      olm_versions = g["preferredVersion"]["version"] == "v2" && g["versions"].size() == 4 &&
                     g["versions"][0]["version"] == "v2" && g["versions"][1]["version"] == "v1" &&
                     g["versions"][2]["version"] == "v1alpha2" && g["versions"][3]["version"] == "v1alpha1";
    }
  }
  EXPECT_TRUE(samples);
  EXPECT_TRUE(olm_versions);
  Resp image = Do("GET", U("/apis/image.openshift.io/v1"));
  ASSERT_EQ(image.status, 200);
  bool streams = false, status_sub = false, isi_create_only = false;
  Json resources = image.json()["resources"];
  for (const Json& r : resources) {
    if (r["name"] == "imagestreams") {
      streams = r["namespaced"] == true && r["kind"] == "ImageStream" && r["shortNames"][0] == "is";
    }
    if (r["name"] == "imagestreams/status") status_sub = true;
    if (r["name"] == "imagestreamimports") isi_create_only = r["verbs"] == Json::array({"create"});
  }
  EXPECT_TRUE(streams);
  EXPECT_TRUE(status_sub);
  EXPECT_TRUE(isi_create_only);
  Resp core = Do("GET", U("/api/v1"));
  EXPECT_NE(core.body.find("\"configmaps\""), std::string::npos);
  EXPECT_EQ(core.body.find("\"leases\""), std::string::npos) << "leases are coordination.k8s.io, not core";
  Resp leases = Do("GET", U("/apis/coordination.k8s.io/v1"));
  EXPECT_NE(leases.body.find("\"leases\""), std::string::npos);
  EXPECT_EQ(Do("GET", U("/apis/nope.example.com/v1")).status, 404);
  // The minimal OpenAPI v3: a root naming each group-version, and per
  // group-version a PATCH operation per kind that takes fieldValidation.
  Json root = Do("GET", U("/openapi/v3")).json();
  ASSERT_TRUE(root["paths"].contains("apis/samples.operator.openshift.io/v1"));
  std::string gv_url = root["paths"]["api/v1"]["serverRelativeURL"];
  Json doc = Do("GET", U(gv_url)).json();
  const Json& cm_patch = doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
  EXPECT_EQ(cm_patch["x-kubernetes-group-version-kind"]["kind"], "ConfigMap");
  EXPECT_EQ(cm_patch["parameters"][0]["name"], "fieldValidation");
  EXPECT_EQ(Do("GET", U("/openapi/v2")).status, 404);
}

TEST_F(ApiServerTest, CrudAndConflicts) {
  Resp created = CreateCm("a");
  ASSERT_EQ(created.status, 201) << created.body;
  Json cm = created.json();
  EXPECT_FALSE(cm["metadata"]["uid"].get<std::string>().empty());
  std::string rv = cm["metadata"]["resourceVersion"];
  Resp again = CreateCm("a");
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.json()["kind"], "Status");
  EXPECT_EQ(again.json()["reason"], "AlreadyExists");
  EXPECT_EQ(again.json()["details"]["name"], "a");

  Resp got = Do("GET", CmUrl("a"));
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.json()["data"]["k"], "v");

  Json edit = cm;
  edit["data"]["k"] = "w";
  Resp put = Do("PUT", CmUrl("a"), engine::Dump(edit));
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_NE(put.json()["metadata"]["resourceVersion"], rv);
  // The same resourceVersion again is stale now.
  edit["data"]["k"] = "x";
  Resp stale = Do("PUT", CmUrl("a"), engine::Dump(edit));
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stale.json()["reason"], "Conflict");
  // The URL names the object: a body naming another is refused.
  Json other = put.json();
  other["metadata"]["name"] = "b";
  EXPECT_EQ(Do("PUT", CmUrl("a"), engine::Dump(other)).status, 400);

  Resp del = Do("DELETE", CmUrl("a"));
  EXPECT_EQ(del.status, 200);
  Resp gone = Do("GET", CmUrl("a"));
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(gone.json()["reason"], "NotFound");
  EXPECT_EQ(gone.json()["code"], 404);
  EXPECT_EQ(Do("DELETE", CmUrl("a")).status, 404);
  EXPECT_EQ(Do("POST", CmUrl(), "{not json").status, 400);
}

TEST_F(ApiServerTest, LargeBodiesAndExpectContinue) {
  // libcurl sends "Expect: 100-continue" for large bodies (asked for here
  // explicitly); the server answers 100 so the body follows at once.
  std::string big(200 * 1024, 'x');
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "big"}, {"namespace", "demo"}}},
             {"data", {{"blob", big}}}};
  Resp r = Do("POST", CmUrl(), engine::Dump(cm), "application/json", "Expect: 100-continue");
  ASSERT_EQ(r.status, 201);
  EXPECT_NE(r.headers.find("100 Continue"), std::string::npos) << r.headers;
  EXPECT_EQ(Do("GET", CmUrl("big")).json()["data"]["blob"].get<std::string>().size(), big.size());
}

TEST_F(ApiServerTest, PatchKinds) {
  ASSERT_EQ(CreateCm("p").status, 201);
  Resp merge = Do("PATCH", CmUrl("p"), R"({"data":{"k":null,"m":"1"}})", "application/merge-patch+json");
  ASSERT_EQ(merge.status, 200) << merge.body;
  EXPECT_FALSE(merge.json()["data"].contains("k"));
  EXPECT_EQ(merge.json()["data"]["m"], "1");
  Resp jp = Do("PATCH", CmUrl("p"), R"([{"op":"add","path":"/data/j","value":"2"}])",
               "application/json-patch+json");
  ASSERT_EQ(jp.status, 200) << jp.body;
  EXPECT_EQ(jp.json()["data"]["j"], "2");
  Resp smp = Do("PATCH", CmUrl("p"), R"({"metadata":{"labels":{"x":"y"}}})",
                "application/strategic-merge-patch+json");
  ASSERT_EQ(smp.status, 200);
  EXPECT_EQ(smp.json()["metadata"]["labels"]["x"], "y");
  EXPECT_EQ(smp.json()["data"]["m"], "1");
  Resp failed_test = Do("PATCH", CmUrl("p"), R"([{"op":"test","path":"/data/m","value":"nope"}])",
                        "application/json-patch+json");
  EXPECT_EQ(failed_test.status, 422);
  EXPECT_EQ(Do("PATCH", CmUrl("p"), "{}", "application/apply-patch+yaml").status, 415);
  // A resourceVersion in a patch is a precondition.
  Resp stale = Do("PATCH", CmUrl("p"), R"({"metadata":{"resourceVersion":"1"},"data":{"z":"1"}})",
                  "application/merge-patch+json");
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(Do("PATCH", CmUrl("missing"), "{}", "application/merge-patch+json").status, 404);
}

TEST_F(ApiServerTest, StatusSubresource) {
  std::string url = U("/apis/samples.operator.openshift.io/v1/configs/cluster");
  Json config = Do("GET", url).json();
  ASSERT_EQ(config["spec"]["managementState"], "Managed");
  int64_t generation = config["metadata"]["generation"];
  // The main resource ignores status; spec changes bump generation.
  Json edit = config;
  edit["spec"]["managementState"] = "Removed";
  edit["status"]["managementState"] = "Hacked";
  Json after = Do("PUT", url, engine::Dump(edit)).json();
  EXPECT_EQ(after["spec"]["managementState"], "Removed");
  EXPECT_EQ(after["status"]["managementState"], "Managed");
  EXPECT_EQ(after["metadata"]["generation"], generation + 1);
  // The status subresource changes status only, never generation.
  Json st = after;
  st["spec"]["managementState"] = "Managed";
  st["status"]["managementState"] = "Removed";
  Resp put = Do("PUT", url + "/status", engine::Dump(st));
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(put.json()["status"]["managementState"], "Removed");
  EXPECT_EQ(put.json()["spec"]["managementState"], "Removed");
  EXPECT_EQ(put.json()["metadata"]["generation"], generation + 1);
  Resp patch =
      Do("PATCH", url + "/status", R"({"status":{"version":"4.16.0"}})", "application/merge-patch+json");
  ASSERT_EQ(patch.status, 200);
  EXPECT_EQ(patch.json()["status"]["version"], "4.16.0");
  EXPECT_EQ(Do("GET", url + "/status").json()["status"]["version"], "4.16.0");
  // ConfigMaps have no status subresource.
  ASSERT_EQ(CreateCm("s").status, 201);
  EXPECT_EQ(Do("GET", CmUrl("s") + "/status").status, 404);
}

// metadata.managedFields over HTTP (managed_fields.h): the manager from
// fieldManager or the User-Agent, a /status entry of its own, a CRD's
// entries kept through admission, the time from the virtual clock.
TEST_F(ApiServerTest, WritesRecordTheirFieldManager) {
  Resp created =
      Do("POST", CmUrl() + "?fieldManager=creator", R"({"metadata":{"name":"mf"},"data":{"a":"1"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  Json entry = created.json()["metadata"]["managedFields"][0];
  EXPECT_EQ(entry["manager"], "creator");
  EXPECT_EQ(entry["operation"], "Update");
  EXPECT_EQ(entry["apiVersion"], "v1");
  EXPECT_EQ(entry["fieldsType"], "FieldsV1");
  EXPECT_EQ(engine::Dump(entry["fieldsV1"]), R"({"f:data":{".":{},"f:a":{}}})");
  EXPECT_EQ(engine::GetString(entry, {"time"}).substr(0, 11), "2026-11-21T")
      << "the scenario's virtual clock";
  // No fieldManager: the User-Agent's product name.
  Resp patched = Do("PATCH", CmUrl("mf"), R"({"data":{"b":"2"}})", "application/merge-patch+json",
                    "User-Agent: kubectl/v1.32.0 (linux/amd64) kubernetes/abc");
  ASSERT_EQ(patched.status, 200) << patched.body;
  Json mf = patched.json()["metadata"]["managedFields"];
  ASSERT_EQ(mf.size(), 2u) << mf;
  EXPECT_EQ(mf[1]["manager"], "kubectl");
  EXPECT_EQ(engine::Dump(mf[1]["fieldsV1"]), R"({"f:data":{"f:b":{}}})");
  EXPECT_EQ(Do("GET", CmUrl("mf")).json()["metadata"]["managedFields"], mf);
  // A bad fieldManager is refused as the real server refuses it.
  Resp bad = Do("POST", CmUrl() + "?fieldManager=" + std::string(129, 'm'), R"({"metadata":{"name":"mf2"}})");
  EXPECT_EQ(bad.status, 422) << bad.body;
  EXPECT_NE(bad.body.find("CreateOptions.meta.k8s.io"), std::string::npos) << bad.body;

  // A CRD kind: spec by one manager, status by another under the subresource.
  std::string url = U("/apis/samples.operator.openshift.io/v1/configs/cluster");
  Json config = Do("GET", url).json();
  config["spec"]["managementState"] = "Removed";
  Resp spec = Do("PUT", url + "?fieldManager=admin", engine::Dump(config));
  ASSERT_EQ(spec.status, 200) << spec.body;
  Resp status = Do("PATCH", url + "/status?fieldManager=cluster-samples-operator",
                   R"({"status":{"managementState":"Removed"}})", "application/merge-patch+json");
  ASSERT_EQ(status.status, 200) << status.body;
  Json entries = status.json()["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 2u) << entries;
  std::map<std::string, Json> by_manager;
  for (const Json& e : entries) by_manager[e["manager"]] = e;
  EXPECT_EQ(engine::Dump(by_manager["admin"]["fieldsV1"]), R"({"f:spec":{"f:managementState":{}}})");
  EXPECT_FALSE(by_manager["admin"].contains("subresource"));
  EXPECT_EQ(engine::Dump(by_manager["cluster-samples-operator"]["fieldsV1"]),
            R"({"f:status":{"f:managementState":{}}})");
  EXPECT_EQ(by_manager["cluster-samples-operator"]["subresource"], "status");
  EXPECT_EQ(Do("GET", url).json()["metadata"]["managedFields"], entries);
  // Writing the same again changes nothing: no new resourceVersion.
  std::string rv = engine::GetString(status.json(), {"metadata", "resourceVersion"});
  Resp again = Do("PATCH", url + "/status?fieldManager=cluster-samples-operator",
                  R"({"status":{"managementState":"Removed"}})", "application/merge-patch+json");
  EXPECT_EQ(engine::GetString(again.json(), {"metadata", "resourceVersion"}), rv);
}

TEST_F(ApiServerTest, FinalizersAndPreconditions) {
  ASSERT_EQ(CreateCm("f", {{"metadata", {{"finalizers", {"example.com/keep"}}}}}).status, 201);
  Json cm = Do("GET", CmUrl("f")).json();
  Resp wrong_uid = Do("DELETE", CmUrl("f"), R"({"preconditions":{"uid":"nope"}})");
  EXPECT_EQ(wrong_uid.status, 409);
  EXPECT_EQ(wrong_uid.json()["reason"], "Conflict");
  Resp wrong_rv = Do("DELETE", CmUrl("f"), R"({"preconditions":{"resourceVersion":"1"}})");
  EXPECT_EQ(wrong_rv.status, 409);
  Resp del =
      Do("DELETE", CmUrl("f"), engine::Dump(Json{{"preconditions", {{"uid", cm["metadata"]["uid"]}}}}));
  ASSERT_EQ(del.status, 200) << del.body;
  EXPECT_FALSE(del.json()["metadata"]["deletionTimestamp"].get<std::string>().empty());
  Resp still = Do("GET", CmUrl("f"));
  ASSERT_EQ(still.status, 200);
  EXPECT_TRUE(still.json()["metadata"].contains("deletionTimestamp"));
  Resp release =
      Do("PATCH", CmUrl("f"), R"({"metadata":{"finalizers":null}})", "application/merge-patch+json");
  EXPECT_EQ(release.status, 200) << release.body;
  EXPECT_EQ(Do("GET", CmUrl("f")).status, 404);
}

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

TEST_F(ApiServerTest, WatchResumesFromResourceVersion) {
  uint64_t from = server_->ResourceVersion();
  ASSERT_EQ(CreateCm("w").status, 201);
  ASSERT_EQ(Do("PATCH", CmUrl("w"), R"({"data":{"k":"2"}})", "application/merge-patch+json").status, 200);
  ASSERT_EQ(CreateCm("other-ns-filtered", {{"metadata", {{"labels", {{"skip", "1"}}}}}}).status, 201);
  ASSERT_EQ(Do("DELETE", CmUrl("w")).status, 200);
  WatchResult w =
      Watch(CmUrl() + "?watch=1&labelSelector=!skip&resourceVersion=" + std::to_string(from), AtLeast(3));
  ASSERT_EQ(w.events.size(), 3u);
  EXPECT_EQ(w.events[0]["type"], "ADDED");
  EXPECT_EQ(w.events[1]["type"], "MODIFIED");
  EXPECT_EQ(w.events[1]["object"]["data"]["k"], "2");
  EXPECT_EQ(w.events[2]["type"], "DELETED");
  EXPECT_EQ(w.events[2]["object"]["metadata"]["name"], "w");
}

TEST_F(ApiServerTest, WatchSelectorTransitionsAreAddedAndDeleted) {
  uint64_t from = server_->ResourceVersion();
  ASSERT_EQ(CreateCm("t").status, 201);  // no label: not seen
  auto label = [&](const char* value) {
    return Do("PATCH", CmUrl("t"), recon::StrCat(R"({"metadata":{"labels":{"app":)", value, "}}}"),
              "application/merge-patch+json")
        .status;
  };
  ASSERT_EQ(label("\"a\""), 200);  // starts matching: ADDED
  ASSERT_EQ(Do("PATCH", CmUrl("t"), R"({"data":{"k":"2"}})", "application/merge-patch+json").status, 200);
  ASSERT_EQ(label("\"b\""), 200);  // stops matching: DELETED
  ASSERT_EQ(label("\"a\""), 200);  // matches again: ADDED
  WatchResult w =
      Watch(CmUrl() + "?watch=1&labelSelector=app%3Da&resourceVersion=" + std::to_string(from), AtLeast(4));
  ASSERT_EQ(w.events.size(), 4u);
  EXPECT_EQ(w.events[0]["type"], "ADDED");
  EXPECT_EQ(w.events[1]["type"], "MODIFIED");
  EXPECT_EQ(w.events[2]["type"], "DELETED");
  EXPECT_EQ(w.events[2]["object"]["metadata"]["labels"]["app"], "b");
  EXPECT_EQ(w.events[3]["type"], "ADDED");
}

TEST_F(ApiServerTest, WatchDeliversLiveChanges) {
  WatchResult w;
  std::thread t([&] { w = Watch(CmUrl() + "?watch=true", AtLeast(2)); });
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatches() == 1; }));
  ASSERT_EQ(CreateCm("live").status, 201);
  ASSERT_EQ(Do("DELETE", CmUrl("live")).status, 200);
  t.join();
  ASSERT_EQ(w.events.size(), 2u);
  EXPECT_EQ(w.events[0]["type"], "ADDED");
  EXPECT_EQ(w.events[1]["type"], "DELETED");
}

TEST_F(ApiServerTest, WatchFromAFutureResourceVersionCountsAsNow) {
  WatchResult w;
  std::thread t([&] { w = Watch(CmUrl() + "?watch=1&resourceVersion=999999999", AtLeast(1)); });
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatches() == 1; }));
  ASSERT_EQ(CreateCm("future").status, 201);
  t.join();
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0]["object"]["metadata"]["name"], "future");
}

TEST_F(ApiServerTest, WatchWithoutResourceVersionStartsWithTheCurrentState) {
  WatchResult w =
      Watch(U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreams?watch=1"), AtLeast(1));
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0]["type"], "ADDED");
  EXPECT_EQ(w.events[0]["object"]["metadata"]["name"], "ruby");
}

TEST_F(ApiServerTest, Bookmarks) {
  server_.reset();
  ServeOptions opts;
  opts.bookmark_interval_ms = 50;
  StartServer(opts);
  WatchResult w = Watch(CmUrl() + "?watch=1&allowWatchBookmarks=true&resourceVersion=" +
                            std::to_string(server_->ResourceVersion()),
                        AtLeast(1));
  ASSERT_EQ(w.events.size(), 1u);
  const Json& b = w.events[0];
  EXPECT_EQ(b["type"], "BOOKMARK");
  EXPECT_EQ(b["object"]["kind"], "ConfigMap");
  EXPECT_EQ(b["object"]["apiVersion"], "v1");
  EXPECT_EQ(b["object"]["metadata"].size(), 1u);
  EXPECT_EQ(b["object"]["metadata"]["resourceVersion"], std::to_string(server_->ResourceVersion()));
}

TEST_F(ApiServerTest, TimeoutSecondsEndsTheStreamCleanly) {
  WatchResult w = Watch(CmUrl() + "?watch=1&timeoutSeconds=1", nullptr);
  EXPECT_EQ(w.code, CURLE_OK);
  EXPECT_EQ(w.status, 200);
  EXPECT_TRUE(w.events.empty());
}

TEST_F(ApiServerTest, WatchFromCompactedHistoryIsExpired) {
  uint64_t from = server_->ResourceVersion();
  ASSERT_EQ(CreateCm("c").status, 201);
  server_->Compact();
  WatchResult w = Watch(CmUrl() + "?watch=1&resourceVersion=" + std::to_string(from), nullptr);
  EXPECT_EQ(w.code, CURLE_OK);
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0]["type"], "ERROR");
  EXPECT_EQ(w.events[0]["object"]["code"], 410);
  EXPECT_EQ(w.events[0]["object"]["reason"], "Expired");
  // From the current resourceVersion the watch works again.
  uint64_t now = server_->ResourceVersion();
  ASSERT_EQ(CreateCm("c2").status, 201);
  WatchResult ok = Watch(CmUrl() + "?watch=1&resourceVersion=" + std::to_string(now), AtLeast(1));
  ASSERT_EQ(ok.events.size(), 1u);
  EXPECT_EQ(ok.events[0]["object"]["metadata"]["name"], "c2");
}

TEST_F(ApiServerTest, DropWatchesEndsOpenStreams) {
  WatchResult w;
  std::thread t([&] { w = Watch(CmUrl() + "?watch=1", nullptr); });
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatches() == 1; }));
  server_->DropWatches();
  t.join();
  EXPECT_NE(w.code, CURLE_OPERATION_TIMEDOUT);
  EXPECT_EQ(server_->OpenWatches(), 0u);
  // Other requests still work.
  EXPECT_EQ(Do("GET", CmUrl()).status, 200);
}

TEST_F(ApiServerTest, RestartKeepsObjectsAndForgetsHistory) {
  ASSERT_EQ(CreateCm("r").status, 201);
  uint64_t before = server_->ResourceVersion();
  ASSERT_EQ(Do("PATCH", CmUrl("r"), R"({"data":{"k":"2"}})", "application/merge-patch+json").status, 200);
  WatchResult w;
  std::thread t([&] { w = Watch(CmUrl() + "?watch=1", nullptr); });
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatches() == 1; }));
  server_->Restart();
  t.join();
  EXPECT_EQ(server_->OpenWatches(), 0u);
  EXPECT_EQ(Do("GET", CmUrl("r")).json()["data"]["k"], "2");
  WatchResult old = Watch(CmUrl() + "?watch=1&resourceVersion=" + std::to_string(before), nullptr);
  ASSERT_EQ(old.events.size(), 1u);
  EXPECT_EQ(old.events[0]["object"]["code"], 410);
}

TEST_F(ApiServerTest, FailNextWithRetryAfter) {
  server_->FailNext(2, 429, 3, "get");
  EXPECT_EQ(Do("GET", CmUrl()).status, 200) << "a list is not a get";
  Resp first = Do("GET", U("/api/v1/namespaces/openshift"));
  EXPECT_EQ(first.status, 429);
  EXPECT_EQ(first.json()["reason"], "TooManyRequests");
  EXPECT_EQ(first.json()["details"]["retryAfterSeconds"], 3);
  EXPECT_NE(first.headers.find("Retry-After: 3"), std::string::npos) << first.headers;
  EXPECT_EQ(Do("GET", U("/api/v1/namespaces/openshift")).status, 429);
  EXPECT_EQ(Do("GET", U("/api/v1/namespaces/openshift")).status, 200);
  server_->FailNext(1, 500);
  Resp err = CreateCm("x");
  EXPECT_EQ(err.status, 500);
  EXPECT_EQ(err.json()["reason"], "InternalError");
  EXPECT_EQ(CreateCm("x").status, 201);
  auto log = server_->Requests();
  ASSERT_GE(log.size(), 2u);
  EXPECT_EQ(log[log.size() - 2].status, 500);
  EXPECT_EQ(log.back().method, "POST");
}

TEST_F(ApiServerTest, ImageStreamImportLandsInStatusLater) {
  Json isi = {
      {"apiVersion", "image.openshift.io/v1"},
      {"kind", "ImageStreamImport"},
      {"metadata", {{"name", "python"}, {"namespace", "openshift"}}},
      {"spec",
       {{"import", true},
        {"images",
         {{{"from", {{"kind", "DockerImage"}, {"name", "registry.example.com/ubi9/python-311:latest"}}},
           {"to", {{"name", "3.11"}}}},
          {{"from", {{"kind", "DockerImage"}, {"name", "registry.example.com/broken/python:1"}}},
           {"to", {{"name", "broken"}}}}}}}}};
  Resp r =
      Do("POST", U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreamimports"), engine::Dump(isi));
  ASSERT_EQ(r.status, 201) << r.body;
  std::string url = U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreams/python");
  Json stream;
  ASSERT_TRUE(Eventually([&] {
    Resp g = Do("GET", url);
    if (g.status != 200) return false;
    stream = g.json();
    return engine::Path(stream, {"status", "tags"}).size() == 2;
  })) << stream.dump();
  for (const Json& t : stream["status"]["tags"]) {
    if (t["tag"] == "3.11") {
      EXPECT_EQ(t["items"].size(), 1u);
      EXPECT_TRUE(t["items"][0]["image"].get<std::string>().starts_with("sha256:"));
    } else {
      EXPECT_EQ(t["tag"], "broken");
      EXPECT_EQ(t["conditions"][0]["type"], "ImportSuccess");
      EXPECT_EQ(t["conditions"][0]["status"], "False");
    }
  }
  // Only create is served on imagestreamimports.
  EXPECT_EQ(Do("GET", U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreamimports")).status, 405);
  Resp bad = Do("POST", U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreamimports"),
                R"({"metadata":{"name":"x"},"spec":{"import":true,"images":"no"}})");
  EXPECT_EQ(bad.status, 422) << bad.body;
}

TEST_F(ApiServerTest, SpecTagEditTriggersImport) {
  std::string url = U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreams/ruby");
  Resp p = Do(
      "PATCH", url,
      R"([{"op":"add","path":"/spec/tags/-","value":{"name":"3.3","from":{"kind":"DockerImage","name":"registry.example.com/ruby:3.3"}}}])",
      "application/json-patch+json");
  ASSERT_EQ(p.status, 200) << p.body;
  EXPECT_TRUE(Eventually([&] {
    Json stream = Do("GET", url).json();
    for (const Json& t : engine::Path(stream, {"status", "tags"})) {
      if (t["tag"] == "3.3" && t.contains("items")) return true;
    }
    return false;
  }));
}

TEST_F(ApiServerTest, ProbeEndpoint) {
  Json down =
      Do("GET", U("/recon-sim/v1/probe?name=samples/registry&target=https%3A%2F%2Fregistry.redhat.io"))
          .json();
  EXPECT_EQ(down["ok"], false);
  EXPECT_EQ(down["detail"], "dial tcp: i/o timeout");
  Json sp = Do("GET", U("/recon-sim/v1/probe?name=aro/serviceprincipal")).json();
  EXPECT_EQ(sp["ok"], true);
  EXPECT_EQ(sp["status"], 200);
  EXPECT_EQ(sp["data"]["oid"], "1234");
  EXPECT_EQ(Do("GET", U("/recon-sim/v1/probe")).status, 400);
}

TEST_F(ApiServerTest, BearerToken) {
  server_.reset();
  ServeOptions opts;
  opts.token = "s3cret";
  StartServer(opts);
  Resp no = Do("GET", U("/api/v1/namespaces"));
  EXPECT_EQ(no.status, 401);
  EXPECT_EQ(no.json()["reason"], "Unauthorized");
  EXPECT_EQ(Do("GET", U("/api/v1/namespaces"), "", "application/json", "Authorization: Bearer wrong").status,
            401);
  EXPECT_EQ(Do("GET", U("/api/v1/namespaces"), "", "application/json", "Authorization: Bearer s3cret").status,
            200);
}

TEST_F(ApiServerTest, ScenarioWriteFaultsAnswerOverHttp) {
  server_.reset();
  Scenario s = SamplesScenario();
  s.faults.write_errors.push_back(WriteFault{503, 1.0});
  StartServer({}, s);
  Resp r = CreateCm("nope");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.json()["kind"], "Status");
  EXPECT_EQ(Do("GET", CmUrl("nope")).status, 404);
}

TEST_F(ApiServerTest, ScenarioEditsRunOnTheScaledClock) {
  server_.reset();
  Scenario s = SamplesScenario();
  Edit edit;
  edit.at_ns = 120'000'000'000;  // 2m virtual: 0.12s real at speed 1000
  edit.op = Edit::Op::kSet;
  edit.object = {{"kind", "Config"}, {"name", "cluster"}};
  edit.path = "spec.managementState";
  edit.value = "Removed";
  s.edits.push_back(edit);
  StartServer({}, s);
  std::string url = U("/apis/samples.operator.openshift.io/v1/configs");
  WatchResult w =
      Watch(url + "?watch=1&resourceVersion=" + std::to_string(server_->ResourceVersion()), AtLeast(1));
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0]["type"], "MODIFIED");
  EXPECT_EQ(w.events[0]["object"]["spec"]["managementState"], "Removed");
}

TEST_F(ApiServerTest, KeepAliveServesManyRequestsOnOneConnection) {
  CURL* c = curl_easy_init();
  std::string body;
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
  long connects = 0;
  for (int i = 0; i < 20; ++i) {
    curl_easy_setopt(c, CURLOPT_URL, U("/api/v1/namespaces").c_str());
    ASSERT_EQ(curl_easy_perform(c), CURLE_OK);
    long n = 0;
    curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &n);
    connects += n;
  }
  curl_easy_cleanup(c);
  EXPECT_EQ(connects, 1);
}

TEST_F(ApiServerTest, ManyConcurrentClients) {
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      for (int j = 0; j < 10; ++j) {
        if (CreateCm("c-" + std::to_string(i) + "-" + std::to_string(j)).status == 201) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 160);
  EXPECT_EQ(Do("GET", CmUrl()).json()["items"].size(), 160u);
}

}  // namespace
}  // namespace recon::sim

namespace recon::sim {
namespace {

// A refused write is the real 422 Status: reason Invalid, the message, and
// details with the name, group, kind and one cause per field error.
TEST_F(ApiServerTest, InvalidIs422StatusWithCauses) {
  Json sub = {{"apiVersion", "operators.coreos.com/v1alpha1"},
              {"kind", "Subscription"},
              {"metadata", {{"name", "etcd"}}}};
  Resp r =
      Do("POST", U("/apis/operators.coreos.com/v1alpha1/namespaces/demo/subscriptions"), engine::Dump(sub));
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(
      r.json(),
      (Json{{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", Json::object()},
            {"status", "Failure"},
            {"message", "Subscription.operators.coreos.com \"etcd\" is invalid: spec: Required value"},
            {"reason", "Invalid"},
            {"details",
             {{"name", "etcd"},
              {"group", "operators.coreos.com"},
              {"kind", "Subscription"},
              {"causes",
               {{{"reason", "FieldValueRequired"}, {"message", "Required value"}, {"field", "spec"}}}}}},
            {"code", 422}}));
  // A built-in type's name, in the real wording.
  r = CreateCm("Bad_Name");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.json()["details"]["kind"], "ConfigMap");
  EXPECT_FALSE(r.json()["details"].contains("group"));
  EXPECT_EQ(r.json()["details"]["causes"][0]["field"], "metadata.name");
}

// PUT without a resourceVersion: refused for a CRD kind, unconditional for
// a ConfigMap.
TEST_F(ApiServerTest, UpdateWithoutResourceVersion) {
  std::string url = U("/apis/samples.operator.openshift.io/v1/configs/cluster");
  Json config = Do("GET", url).json();
  config["metadata"].erase("resourceVersion");
  config["spec"]["managementState"] = "Removed";
  Resp r = Do("PUT", url, engine::Dump(config));
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.json()["message"],
            "configs.samples.operator.openshift.io \"cluster\" is invalid: metadata.resourceVersion: Invalid "
            "value: 0x0: must be specified for an update");
  EXPECT_EQ(r.json()["details"]["kind"], "configs");
  EXPECT_EQ(r.json()["details"]["group"], "samples.operator.openshift.io");
  EXPECT_EQ(Do("PUT", url + "/status", engine::Dump(config)).status, 422);
  ASSERT_EQ(CreateCm("u").status, 201);
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "u"}, {"namespace", "demo"}}},
             {"data", {{"k", "w"}}}};
  EXPECT_EQ(Do("PUT", CmUrl("u"), engine::Dump(cm)).status, 200);
}

TEST_F(ApiServerTest, UndecodableBodyIs415) {
  Resp r = Do("POST", CmUrl(), "apiVersion: v1\nkind: ConfigMap\n", "text/plain");
  ASSERT_EQ(r.status, 415) << r.body;
  EXPECT_EQ(r.json(),
            (Json{{"kind", "Status"},
                  {"apiVersion", "v1"},
                  {"metadata", Json::object()},
                  {"status", "Failure"},
                  {"message",
                   "the body of the request was in an unknown format - accepted media types include: "
                   "application/json, application/yaml, application/vnd.kubernetes.protobuf"},
                  {"reason", "UnsupportedMediaType"},
                  {"code", 415}}));
  // A CRD has no protobuf form.
  r = Do("POST", U("/apis/operators.coreos.com/v1alpha1/namespaces/demo/subscriptions"),
         std::string("k8s\0", 4), "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 415) << r.body;
  EXPECT_EQ(
      r.json()["message"],
      "the body of the request was in an unknown format - accepted media types include: application/json, "
      "application/yaml");
}

// What `kubectl create configmap cm1 -n foo --from-literal=a=b
// --from-literal=greeting=hello` sends (kubectl 1.32, captured).
TEST_F(ApiServerTest, ProtobufCreateOfAConfigMap) {
  std::string body = absl::HexStringToBytes(
      "6b3873000a0f0a0276311209436f6e6669674d617012330a160a03636d3112001a03666f6f22002a0032003800420012"
      "060a016112016212110a086772656574696e67120568656c6c6f1a002200");
  Resp r = Do("POST", U("/api/v1/namespaces/foo/configmaps"), body, "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.json()["data"]["greeting"], "hello");
  EXPECT_EQ(r.json()["metadata"]["namespace"], "foo");
  EXPECT_TRUE(server_->ObjectJson("", "ConfigMap", "foo", "cm1").has_value());
}

}  // namespace
}  // namespace recon::sim
