# Engine state at a seq: the world projection plus every reducer's own state.
@0x838da38589937746;
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("recon::schema");

const snapshotFormatVersion :UInt16 = 1;

struct SnapshotObject {
  group @0 :Text;
  version @1 :Text;
  kind @2 :Text;
  namespace @3 :Text;
  name @4 :Text;
  body @5 :Data;
}

struct ReducerState {
  domain @0 :Text;
  data @1 :Data;
}

struct Snapshot {
  formatVersion @0 :UInt16;
  seq @1 :UInt64;
  objects @2 :List(SnapshotObject);   # sorted by identity
  clusterFacts @3 :Data;              # merged facts JSON
  reducers @4 :List(ReducerState);    # in registry order
  options @5 :Data;                   # domain options JSON
  extra @6 :Data;                     # engine-private state (timers, content refs)
}
