# An action a reducer emitted, tied to the seq of the event that caused it.
@0xccb97706cf2acfc5;
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("recon::schema");

using Event = import "event.capnp";

const actionFormatVersion :UInt16 = 1;

struct Action {
  formatVersion @0 :UInt16;
  causeSeq @1 :UInt64;
  index @2 :UInt32;          # position among the actions of the same cause
  domain @3 :Text;
  verb @4 :Text;             # create, update, delete, updateStatus, importImage, setTimer, probe, ...
  object @5 :Event.ObjectId;
  body @6 :Data;             # the object JSON the action carries
  timer @7 :Text;            # setTimer
  atNs @8 :Int64;            # setTimer
  probe @9 :Text;            # probe
  target @10 :Text;          # probe
}
