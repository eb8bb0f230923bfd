# Engine state at a seq: the world projection plus every reducer's own state.
@0x838da38589937746;
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("recon::schema");

using Event = import "event.capnp";

const snapshotFormatVersion :UInt16 = 1;

struct SnapshotObject {
  group @0 :Text;
  version @1 :Text;
  kind @2 :Text;
  namespace @3 :Text;
  name @4 :Text;
  body @5 :Data;
  seq @6 :UInt64;
  timeNs @7 :Int64;
}

struct SnapshotContent {
  name @0 :Text;
  digest @1 :Text;
  seq @2 :UInt64;
  files @3 :List(Event.ContentFile);
}

struct ReducerState {
  domain @0 :Text;
  data @1 :Data;
}

struct Option {
  key @0 :Text;
  value @1 :Text;
}

struct Snapshot {
  formatVersion @0 :UInt16;
  seq @1 :UInt64;
  objects @2 :List(SnapshotObject);   # in identity order
  clusterFacts @3 :Data;              # merged facts JSON
  reducers @4 :List(ReducerState);    # in registry order
  options @5 :List(Option);           # sorted by key
  contents @6 :List(SnapshotContent); # sorted by name
}
