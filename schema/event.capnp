# The event envelope: one record per observation, as stored in the log.
# Evolution: only add fields with new ordinals; never renumber or retype.
# `formatVersion` is bumped when the meaning of an existing field changes.
@0xaf5441668016745e;
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("recon::schema");

const eventFormatVersion :UInt16 = 1;

enum EventType {
  added @0;
  modified @1;
  deleted @2;
  timer @3;
  probe @4;
  actionResult @5;
  cluster @6;
  content @7;
}

# Identity of a Kubernetes (or Azure-as-object) resource.
struct ObjectId {
  group @0 :Text;            # "" for the core group
  version @1 :Text;
  kind @2 :Text;
  namespace @3 :Text;        # "" for cluster-scoped objects
  name @4 :Text;
  uid @5 :Text;
  resourceVersion @6 :Text;
}

struct ProbeAnswer {
  name @0 :Text;             # "<domain>/<what>", e.g. "aro/internet/master"
  target @1 :Text;
  ok @2 :Bool;
  hasStatus @3 :Bool;        # an HTTP status was received
  status @4 :Int32;
  detail @5 :Text;
  data @6 :Data;             # optional JSON returned by the probe
}

struct ActionResult {
  action @0 :Text;           # action id, "<cause seq>.<index>"
  ok @1 :Bool;
  hasStatus @2 :Bool;
  status @3 :Int32;
  error @4 :Text;
  resourceVersion @5 :Text;  # a successful write: what the server returned
  uid @6 :Text;              # (how the write's echo is told from others' writes)
  warnings @7 :Data;         # the server's warnings (HTTP 299), a JSON array of texts; empty: none
}

# A domain input that is not a cluster object. Files live once per digest
# in the content table (see store/FORMAT.md); the event only refers to them.
struct ContentRef {
  name @0 :Text;
  digest @1 :Text;           # "sha256:<hex>"
}

struct ContentFile {
  path @0 :Text;
  data @1 :Data;
}

struct Content {
  digest @0 :Text;
  files @1 :List(ContentFile);   # sorted by path
}

struct Event {
  formatVersion @0 :UInt16;
  seq @1 :UInt64;
  timeNs @2 :Int64;          # nanoseconds since the Unix epoch, UTC
  type @3 :EventType;
  object @4 :ObjectId;       # Added / Modified / Deleted
  body @5 :Data;             # the object's JSON exactly as received
  timer @6 :Text;            # Timer
  probe @7 :ProbeAnswer;     # Probe
  actionResult @8 :ActionResult;
  clusterFacts @9 :Data;     # Cluster: the "facts" JSON object as received
  content @10 :ContentRef;   # Content
}
