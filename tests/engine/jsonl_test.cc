// JSONL import/export: every bad input names its line and field; good input
// round-trips byte for byte.
#include <string>
#include <vector>

#include "base/strings.h"
#include "engine/jsonl_reader.h"
#include "engine/jsonl_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "records/codec.h"
#include "store/memory_store.h"

namespace recon::engine {
namespace {

using records::EventType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr char kTypes[] =
    "expected one of Added, Modified, Deleted, Timer, Probe, ActionResult, Cluster, Content";
constexpr char kConfig[] =
    R"({"apiVersion":"samples.operator.openshift.io/v1","kind":"Config","metadata":{"name":"cluster"},"spec":{"managementState":"Managed"}})";

std::string Added(std::string_view object, std::string_view time = "2026-11-21T10:00:00Z") {
  return recon::StrCat(R"({"time":")", time, R"(","type":"Added","object":)", object, "}");
}

// Parses `data` as file "in.jsonl" and returns the error message ("" if none).
std::string ErrorOf(std::string_view data) {
  JsonlReader reader;
  auto r = reader.ParseAll(data, "in.jsonl");
  return r.ok() ? "" : std::string(Sv(r.status().message()));
}

absl::StatusOr<std::vector<ParsedLine>> Parse(std::string_view data) {
  JsonlReader reader;
  return reader.ParseAll(data, "in.jsonl");
}

TEST(JsonlReaderTest, ParsesEveryEventType) {
  const std::string file = recon::StrCat(
      Added(kConfig), "\n", R"({"time":"2026-11-21T10:00:05.25Z","type":"Modified","object":)", kConfig,
      "}\n",
      R"({"time":"2026-11-21T10:00:09Z","type":"Deleted","object":{"apiVersion":"image.openshift.io/v1","kind":"ImageStream","metadata":{"namespace":"openshift","name":"ruby","uid":"u1","resourceVersion":"7"}}})",
      "\n", R"({"time":"2026-11-21T10:15:00Z","type":"Timer","timer":"samples/reimport"})", "\n",
      R"({"time":"2026-11-21T10:15:01Z","type":"Probe","probe":"aro/internet/master","target":"https://management.azure.com/","ok":false,"detail":"dial tcp: i/o timeout"})",
      "\n",
      R"({"time":"2026-11-21T10:15:02Z","type":"ActionResult","action":"12.0","ok":false,"status":409,"error":"Conflict"})",
      "\n",
      R"({"time":"2026-11-21T12:00:00+02:00","type":"Cluster","facts":{"architecture":"x86_64","ipv6":false}})",
      "\n",
      R"({"time":"2026-11-21T10:00:00Z","type":"Content","name":"samples/inventory","files":{"b.json":"{}","a.json":"[1]"}})",
      "\n");
  auto r = Parse(file);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 8u);
  const auto& e = *r;
  EXPECT_EQ(e[0].event.type, records::EventType::kAdded);
  EXPECT_EQ(e[0].event.object.group, "samples.operator.openshift.io");
  EXPECT_EQ(e[0].event.object.version, "v1");
  EXPECT_EQ(e[0].event.object.kind, "Config");
  EXPECT_EQ(e[0].event.object.name, "cluster");
  EXPECT_EQ(e[0].event.body, kConfig);
  EXPECT_EQ(e[1].event.time_ns - e[0].event.time_ns, 5'250'000'000);
  EXPECT_EQ(e[2].event.object.group, "image.openshift.io");
  EXPECT_EQ(e[2].event.object.ns, "openshift");
  EXPECT_EQ(e[2].event.object.uid, "u1");
  EXPECT_EQ(e[2].event.object.resource_version, "7");
  EXPECT_EQ(e[3].event.timer, "samples/reimport");
  EXPECT_EQ(e[4].event.probe.name, "aro/internet/master");
  EXPECT_FALSE(e[4].event.probe.ok);
  EXPECT_FALSE(e[4].event.probe.status.has_value());
  EXPECT_EQ(e[4].event.probe.detail, "dial tcp: i/o timeout");
  EXPECT_EQ(e[5].event.action_result.status, 409);
  EXPECT_EQ(e[5].event.action_result.error, "Conflict");
  EXPECT_EQ(e[6].event.time_ns, e[0].event.time_ns);  // the offset is applied
  EXPECT_EQ(e[6].event.cluster_facts, R"({"architecture":"x86_64","ipv6":false})");
  EXPECT_EQ(e[7].event.content_name, "samples/inventory");
  EXPECT_THAT(e[7].event.content_files, ElementsAre(Pair("a.json", "[1]"), Pair("b.json", "{}")));
  EXPECT_EQ(e[7].event.content_digest, records::ContentDigest(e[7].event.content_files));
  for (size_t i = 0; i < e.size(); ++i) EXPECT_EQ(e[i].line, i + 1);
}

TEST(JsonlReaderTest, MalformedJson) {
  const std::string good = Added(kConfig);
  EXPECT_THAT(
      ErrorOf(recon::StrCat(good, "\n", R"({"time":"2026-11-21T10:00:00Z","type":"Added",)", "\n", good)),
      HasSubstr("in.jsonl: line 2: malformed JSON"));
  EXPECT_THAT(ErrorOf(R"({"time":"2026-11-21T10:00:00Z" "type":"Timer","timer":"t"})"),
              HasSubstr("line 1: malformed JSON"));
  EXPECT_THAT(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Timer","timer":"t"} x)"),
              HasSubstr("line 1: unexpected text after the JSON object"));
  EXPECT_THAT(ErrorOf(R"([{"type":"Timer"}])"), HasSubstr("line 1: expected a JSON object"));
  EXPECT_THAT(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Timer","timer":"t"} {"x":1})"),
              HasSubstr("line 1: unexpected text after the JSON object"));
  EXPECT_THAT(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Timer","timer":"}"} "x")"),
              HasSubstr("line 1: unexpected text after the JSON object"));
  EXPECT_THAT(ErrorOf("not json"), HasSubstr("line 1: expected a JSON object"));
  EXPECT_THAT(ErrorOf("{\"time\":\"x}"), HasSubstr("line 1: malformed JSON"));
}

TEST(JsonlReaderTest, MissingOrUnknownType) {
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","timer":"t"})"),
            recon::StrCat("in.jsonl: line 1: \"type\": missing; ", kTypes));
  EXPECT_EQ(
      ErrorOf(recon::StrCat(Added(kConfig), "\n", R"({"time":"2026-11-21T10:00:00Z","type":"Create"})")),
      recon::StrCat("in.jsonl: line 2: \"type\": ", kTypes));
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"added","object":{}})"),
            recon::StrCat("in.jsonl: line 1: \"type\": ", kTypes));
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":7})"),
            "in.jsonl: line 1: \"type\": expected a string");
}

TEST(JsonlReaderTest, BadTime) {
  EXPECT_EQ(ErrorOf(Added(kConfig, "2026-13-45T10:00:00Z")),
            "in.jsonl: line 1: \"time\": expected an RFC 3339 time like 2026-11-21T10:00:00Z, got "
            "\"2026-13-45T10:00:00Z\"");
  EXPECT_THAT(ErrorOf(Added(kConfig, "yesterday")), HasSubstr("line 1: \"time\": expected an RFC 3339 time"));
  EXPECT_THAT(ErrorOf(Added(kConfig, "2026-11-21 10:00:00")),
              HasSubstr("line 1: \"time\": expected an RFC 3339"));
  EXPECT_EQ(ErrorOf(R"({"type":"Timer","timer":"t"})"),
            "in.jsonl: line 1: \"time\": missing; expected an RFC 3339 time string");
  EXPECT_EQ(ErrorOf(R"({"time":1700000000,"type":"Timer","timer":"t"})"),
            "in.jsonl: line 1: \"time\": expected an RFC 3339 time string");
}

TEST(JsonlReaderTest, AddedWithoutObject) {
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Added"})"),
            "in.jsonl: line 1: \"object\": missing; an Added event needs it");
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Added","object":"cm"})"),
            "in.jsonl: line 1: \"object\": expected a JSON object");
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Timer","timer":"t","object":{}})"),
            "in.jsonl: line 1: \"object\": not a field of a Timer event");
}

TEST(JsonlReaderTest, ObjectWithoutKindOrName) {
  EXPECT_EQ(ErrorOf(Added(R"({"apiVersion":"v1","metadata":{"name":"a"}})")),
            "in.jsonl: line 1: \"object.kind\": missing; expected the object's kind");
  EXPECT_EQ(ErrorOf(Added(R"({"apiVersion":"v1","kind":"","metadata":{"name":"a"}})")),
            "in.jsonl: line 1: \"object.kind\": expected a non-empty string");
  EXPECT_EQ(ErrorOf(Added(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"x"}})")),
            "in.jsonl: line 1: \"object.metadata.name\": missing; expected a non-empty string");
  EXPECT_EQ(ErrorOf(Added(R"({"apiVersion":"v1","kind":"ConfigMap"})")),
            "in.jsonl: line 1: \"object.metadata.name\": missing; expected a non-empty string");
  EXPECT_EQ(ErrorOf(Added(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":""}})")),
            "in.jsonl: line 1: \"object.metadata.name\": missing; expected a non-empty string");
  EXPECT_EQ(ErrorOf(Added(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":5}})")),
            "in.jsonl: line 1: \"object.metadata.name\": expected a string");
  EXPECT_EQ(ErrorOf(Added(R"({"kind":"ConfigMap","metadata":{"name":"a"}})")),
            "in.jsonl: line 1: \"object.apiVersion\": missing; expected e.g. \"v1\" or \"group/v1\"");
}

TEST(JsonlReaderTest, TruncatedLastLine) {
  const std::string good = Added(kConfig);
  const std::string file = recon::StrCat(good, "\n", good, "\n", good.substr(0, good.size() - 20));
  EXPECT_THAT(ErrorOf(file), HasSubstr("in.jsonl: line 3: malformed JSON"));
  // Cut inside a string, and cut right after the object's opening brace.
  EXPECT_THAT(ErrorOf(recon::StrCat(good, "\n", R"({"time":"2026-11-21T10:0)")),
              HasSubstr("line 2: malformed JSON"));
  EXPECT_THAT(
      ErrorOf(recon::StrCat(good, "\n", R"({"time":"2026-11-21T10:00:00Z","type":"Added","object":{)")),
      HasSubstr("line 2: malformed JSON"));
  EXPECT_THAT(ErrorOf(recon::StrCat(good, "\n{")), HasSubstr("line 2: malformed JSON"));
}

TEST(JsonlReaderTest, InvalidUtf8) {
  EXPECT_EQ(
      ErrorOf(recon::StrCat(Added(kConfig), "\n",
                            "{\"time\":\"2026-11-21T10:00:00Z\",\"type\":\"Timer\",\"timer\":\"a\xff\"}")),
      "in.jsonl: line 2: invalid UTF-8");
  // Inside an object body (kept verbatim, so it must be valid), and a
  // truncated multi-byte sequence.
  EXPECT_EQ(ErrorOf(Added("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"},"
                          "\"data\":{\"k\":\"\xc3\"}}")),
            "in.jsonl: line 1: invalid UTF-8");
  EXPECT_EQ(ErrorOf(Added(
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"\xed\xa0\x80\"}}")),
            "in.jsonl: line 1: invalid UTF-8");
}

std::string BigObject(size_t bytes) {
  std::string fill(bytes, 'x');
  for (size_t i = 0; i < fill.size(); i += 101) fill[i] = static_cast<char>('a' + i % 26);
  return recon::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"blob":")",
                       fill, R"("}})");
}

TEST(JsonlReaderTest, FiftyMegabyteLine) {
  const std::string object = BigObject(50 << 20);
  const std::string line = Added(object);
  ASSERT_GT(line.size(), 50u << 20);
  auto ok = Parse(recon::StrCat(Added(kConfig), "\n", line, "\n", Added(kConfig), "\n"));
  ASSERT_TRUE(ok.ok()) << ok.status();
  ASSERT_EQ(ok->size(), 3u);
  EXPECT_EQ((*ok)[1].event.body, object);  // verbatim, all 50 MB
  EXPECT_EQ((*ok)[1].event.object.name, "big");
  EXPECT_EQ((*ok)[2].line, 3u);

  // The same line with its error at the very end.
  std::string bad_field = line;
  bad_field.insert(bad_field.size() - 1, R"(,"bogus":1)");
  EXPECT_EQ(ErrorOf(recon::StrCat(Added(kConfig), "\n", bad_field)),
            "in.jsonl: line 2: \"bogus\": unknown field");
  std::string unclosed = line.substr(0, line.size() - 1);
  EXPECT_THAT(ErrorOf(recon::StrCat(Added(kConfig), "\n", unclosed, "\n")),
              HasSubstr("in.jsonl: line 2: malformed JSON"));
}

TEST(JsonlReaderTest, EmptyFileHasNoEvents) {
  for (std::string_view empty : {"", "\n", "\n\n  \n\t\n", "\r\n"}) {
    auto r = Parse(empty);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->empty());
  }
}

TEST(JsonlReaderTest, UnknownAndRepeatedFields) {
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Timer","timer":"t","color":"red"})"),
            "in.jsonl: line 1: \"color\": unknown field");
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Timer","timer":"t","timer":"u"})"),
            "in.jsonl: line 1: \"timer\": appears twice");
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Probe","probe":"p","target":"t"})"),
            "in.jsonl: line 1: \"ok\": missing; a Probe event needs it");
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"ActionResult","action":"1.0","ok":"no"})"),
            "in.jsonl: line 1: \"ok\": expected true or false");
  EXPECT_EQ(
      ErrorOf(
          R"({"time":"2026-11-21T10:00:00Z","type":"ActionResult","action":"1.0","ok":true,"status":1000})"),
      "in.jsonl: line 1: \"status\": expected an HTTP status code");
  EXPECT_EQ(
      ErrorOf(
          R"({"time":"2026-11-21T10:00:00Z","type":"ActionResult","action":"1.0","ok":true,"warnings":["a",1]})"),
      "in.jsonl: line 1: \"warnings\": expected an array of strings");
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Timer","timer":"t","warnings":[]})"),
            "in.jsonl: line 1: \"warnings\": not a field of a Timer event");
  // Unknown fields inside an object body are the object's business.
  EXPECT_EQ(
      ErrorOf(Added(R"({"apiVersion":"v1","kind":"X","metadata":{"name":"a","anything":1},"weird":[]})")),
      "");
  // seq is accepted (export writes it) and ignored.
  EXPECT_EQ(ErrorOf(R"({"seq":99,"time":"2026-11-21T10:00:00Z","type":"Timer","timer":"t"})"), "");
}

TEST(JsonlReaderTest, BlankLinesAreSkippedButCounted) {
  const std::string file =
      recon::StrCat("\n  \n", Added(kConfig), "\r\n\n\t\n",
                    R"({"seq":1,"time":"2026-11-21T10:00:01Z","type":"Timer","timer":"t"})", "\n");
  auto r = Parse(file);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].line, 3u);  // physical line numbers, for messages
  EXPECT_EQ((*r)[1].line, 6u);
  // Seqs count non-blank lines only (the file's seq field is ignored).
  store::MemoryStore st;
  std::vector<records::EventRecord> events;
  for (auto& p : *r) events.push_back(p.event);
  ASSERT_EQ(st.Append(events).value_or(0), 1u);
  EXPECT_EQ(store::ReadEvent(st, 2)->timer, "t");
  // An error after blank lines names the physical line.
  EXPECT_THAT(ErrorOf(recon::StrCat("\n\n", Added(kConfig), "\n\n{bad\n")),
              HasSubstr("line 5: malformed JSON"));
}

TEST(JsonlReaderTest, EscapesInBodiesAreKeptVerbatim) {
  const std::string object =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a\u002db"},"data":{"html":"\u003cb\u003e \"q\" \\ \/ é \ud83d\ude00"}})";
  auto r = Parse(Added(object));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].event.body, object);
  EXPECT_EQ((*r)[0].event.object.name, "a-b");  // identity fields are unescaped
  EXPECT_EQ(
      EventToJsonl(1, (*r)[0].event),
      recon::StrCat(R"({"seq":1,"time":"2026-11-21T10:00:00Z","type":"Added","object":)", object, "}\n"));
}

TEST(JsonlReaderTest, ContentFilesAndDigests) {
  records::ContentFiles files = {{"a.json", "{\"x\":\"<\\n>\"}"}, {"dir/b.yaml", "k: v\n"}};
  const std::string digest = records::ContentDigest(files);
  const std::string with_digest =
      recon::StrCat(R"({"time":"2026-11-21T10:00:00Z","type":"Content","name":"olm/catalog/ns/c","digest":")",
                    digest, R"(","files":{"dir/b.yaml":"k: v\n","a.json":"{\"x\":\"<\\n>\"}"}})");
  auto r = Parse(with_digest);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].event.content_files, files);
  EXPECT_EQ((*r)[0].event.content_digest, digest);

  const std::string wrong = records::ContentDigest({{"a.json", "other"}});
  std::string mismatch = with_digest;
  mismatch.replace(mismatch.find(digest), digest.size(), wrong);
  EXPECT_EQ(ErrorOf(recon::StrCat(Added(kConfig), "\n", mismatch)),
            recon::StrCat("in.jsonl: line 2: \"digest\": does not match the files (computed ", digest, ")"));
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Content","name":"c","files":{"a":1}})"),
            "in.jsonl: line 1: \"files.a\": expected the file's text as a string");
  EXPECT_EQ(
      ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Content","name":"c","files":{"a":"1","a":"2"}})"),
      "in.jsonl: line 1: \"files.a\": appears twice");
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Content","name":"c"})"),
            "in.jsonl: line 1: \"files\": missing; a Content event needs files or a digest");
  EXPECT_EQ(ErrorOf(R"({"time":"2026-11-21T10:00:00Z","type":"Content","files":{}})"),
            "in.jsonl: line 1: \"name\": missing; a Content event needs it");
  // A digest alone refers to content stored before.
  auto ref = Parse(recon::StrCat(R"({"time":"2026-11-21T10:00:00Z","type":"Content","name":"c","digest":")",
                                 digest, R"("})"));
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_TRUE((*ref)[0].event.content_files.empty());
  EXPECT_EQ((*ref)[0].event.content_digest, digest);
}

// Imports `jsonl` into a fresh MemoryStore and exports it again.
std::string ImportExport(std::string_view jsonl) {
  auto parsed = Parse(jsonl);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return "";
  std::vector<records::EventRecord> events;
  for (auto& p : *parsed) events.push_back(std::move(p.event));
  store::MemoryStore st;
  auto first = st.Append(events);
  EXPECT_TRUE(first.ok()) << first.status();
  std::string out;
  auto it = st.ReadEvents(1, store::kEndOfLog);
  EXPECT_TRUE(it.ok());
  for (; (*it)->Valid(); (*it)->Next()) {
    auto ev = records::DecodeEvent((*it)->payload());
    EXPECT_TRUE(ev.ok()) << ev.status();
    records::ContentFiles files;
    if (ev->type == records::EventType::kContent) files = *st.GetContent(ev->content_digest);
    out += EventToJsonl((*it)->seq(), *ev, &files);
  }
  EXPECT_TRUE((*it)->status().ok());
  return out;
}

TEST(JsonlRoundTripTest, ExportImportExportIsByteIdentical) {
  const std::string input = recon::StrCat(
      R"({"time":"2026-11-21T10:00:00Z","type":"Cluster","facts":{"architecture":"x86_64", "ipv6":false}})",
      "\n",
      Added(
          R"({ "apiVersion" : "v1", "kind":"ConfigMap","metadata":{"name":"a\u003cb"} , "data":{"x":"\u003c\/x\u003e"}})",
          "2026-11-21T10:00:00.123456789Z"),
      "\n\n",
      R"({"time":"2026-11-21T10:00:01Z","type":"Modified","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"é"}}})",
      "\n",
      R"({"time":"2026-11-21T10:00:02Z","type":"Deleted","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"é"}}})",
      "\n", R"({"time":"1969-12-31T23:59:59.5Z","type":"Timer","timer":"samples/\"re\"import\t"})", "\n",
      R"({"time":"2026-11-21T10:15:01Z","type":"Probe","probe":"aro/serviceprincipal","target":"https://graph.microsoft.com/.default","ok":true,"status":200,"data":{"aud":"x","n":[1,2]}})",
      "\n",
      R"({"time":"2026-11-21T10:15:01Z","type":"Probe","probe":"aro/internet/master","target":"https://x/","ok":false,"detail":"dial tcp: i/o timeout","data":"text"})",
      "\n",
      R"({"time":"2026-11-21T10:15:02Z","type":"ActionResult","action":"12.0","ok":false,"status":409,"error":"Conflict"})",
      "\n", R"({"time":"2026-11-21T10:15:03Z","type":"ActionResult","action":"12.1","ok":true})", "\n",
      R"({"time":"2026-11-21T10:15:03Z","type":"ActionResult","action":"12.2","ok":true,"status":200,"resourceVersion":"4711","uid":"6c1f"})",
      "\n",
      R"({"time":"2026-11-21T10:15:03Z","type":"ActionResult","action":"12.3","ok":true,"status":201,"warnings":["unknown field \"spec.x\"", "b"]})",
      "\n",
      R"({"time":"2026-11-21T10:15:04Z","type":"Content","name":"samples/inventory","files":{"z.json":"{\"a\":\"\u0001\"}","a.json":"line1\nline2"}})",
      "\n",
      R"({"time":"2026-11-21T10:15:05Z","type":"Content","name":"samples/inventory","files":{"a.json":"line1\nline2","z.json":"{\"a\":\"\u0001\"}"}})",
      "\n", R"({"time":"2026-11-21T10:15:06Z","type":"Content","name":"olm/catalog/ns/empty","files":{}})",
      "\n");
  const std::string first = ImportExport(input);
  ASSERT_FALSE(first.empty());
  const std::string second = ImportExport(first);
  EXPECT_EQ(second, first);
  EXPECT_EQ(ImportExport(second), first);
  // Bodies and facts stay as received, whitespace and escapes included.
  EXPECT_THAT(
      first,
      HasSubstr(
          R"("object":{ "apiVersion" : "v1", "kind":"ConfigMap","metadata":{"name":"a\u003cb"} , "data":{"x":"\u003c\/x\u003e"}})"));
  EXPECT_THAT(first, HasSubstr(R"("facts":{"architecture":"x86_64", "ipv6":false})"));
  EXPECT_THAT(first, HasSubstr(R"("time":"2026-11-21T10:00:00.123456789Z")"));
  EXPECT_THAT(first, HasSubstr(R"("time":"1969-12-31T23:59:59.5Z")"));
  EXPECT_THAT(first, HasSubstr(R"({"seq":2,)"));
  EXPECT_THAT(
      first,
      HasSubstr(
          R"({"seq":14,"time":"2026-11-21T10:15:06Z","type":"Content","name":"olm/catalog/ns/empty","digest":"sha256:)"));
  // A successful write's resourceVersion and uid go through the store (DESIGN).
  EXPECT_THAT(first,
              HasSubstr(R"("action":"12.2","ok":true,"status":200,"resourceVersion":"4711","uid":"6c1f"})"));
  // And the server's warnings, as received.
  EXPECT_THAT(
      first,
      HasSubstr(R"("action":"12.3","ok":true,"status":201,"warnings":["unknown field \"spec.x\"", "b"]})"));
}

TEST(JsonlWriterTest, Actions) {
  records::ActionRecord a;
  a.cause_seq = 41;
  a.domain = "samples";
  a.verb = "setTimer";
  a.timer = "samples/reimport";
  a.at_ns = 1'795'255'200'000'000'000;
  EXPECT_EQ(
      ActionToJsonl(a),
      R"({"cause":41,"domain":"samples","verb":"setTimer","timer":"samples/reimport","at":"2026-11-21T10:00:00Z"})"
      "\n");
  a.verb = "probe";
  a.domain = "aro";
  a.probe = "aro/internet/master";
  a.target = "https://management.azure.com/";
  EXPECT_EQ(
      ActionToJsonl(a),
      R"({"cause":41,"domain":"aro","verb":"probe","probe":"aro/internet/master","target":"https://management.azure.com/"})"
      "\n");
  a.verb = "create";
  a.body = R"({"kind":"X"})";
  EXPECT_EQ(ActionToJsonl(a), R"({"cause":41,"domain":"aro","verb":"create","object":{"kind":"X"}})"
                              "\n");
}

}  // namespace
}  // namespace recon::engine
