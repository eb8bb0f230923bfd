#include "adapters/sim/protobuf.h"

#include <cstdint>
#include <string>

#include "absl/strings/escaping.h"
#include "base/strings.h"

namespace recon::sim {
namespace {

using engine::Json;

// One field of a message: its number, wire type and value.
struct Field {
  uint32_t number = 0;
  int wire = 0;
  uint64_t varint = 0;
  std::string_view bytes;  // wire type 2
};

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool done() const { return at_ >= data_.size(); }

  absl::StatusOr<Field> Next() {
    Field f;
    uint64_t tag = 0;
    if (!Varint(&tag)) return Malformed("a field tag");
    f.number = static_cast<uint32_t>(tag >> 3);
    f.wire = static_cast<int>(tag & 7);
    switch (f.wire) {
      case 0:
        if (!Varint(&f.varint)) return Malformed("a varint");
        break;
      case 1:
        if (data_.size() - at_ < 8) return Malformed("a fixed64");
        at_ += 8;
        break;
      case 2: {
        uint64_t n = 0;
        if (!Varint(&n) || n > data_.size() - at_) return Malformed("a length-delimited field");
        f.bytes = data_.substr(at_, n);
        at_ += n;
        break;
      }
      case 5:
        if (data_.size() - at_ < 4) return Malformed("a fixed32");
        at_ += 4;
        break;
      default:
        return Malformed(recon::StrCat("wire type ", f.wire));
    }
    return f;
  }

 private:
  static absl::Status Malformed(std::string_view what) {
    return absl::InvalidArgumentError(recon::StrCat("protobuf: malformed ", what));
  }
  bool Varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && at_ < data_.size(); shift += 7) {
      uint8_t b = static_cast<uint8_t>(data_[at_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *out = v;
        return true;
      }
    }
    return false;
  }

  std::string_view data_;
  size_t at_ = 0;
};

// A map<string, string|bytes> entry (key = 1, value = 2) into `out`.
absl::Status MapEntry(std::string_view entry, bool bytes, Json& out) {
  Reader r(entry);
  std::string key, value;
  while (!r.done()) {
    auto f = r.Next();
    if (!f.ok()) return f.status();
    if (f->wire != 2) continue;
    if (f->number == 1) key = std::string(f->bytes);
    if (f->number == 2) value = std::string(f->bytes);
  }
  if (!out.is_object()) out = Json::object();
  out[key] = bytes ? absl::Base64Escape(value) : value;
  return absl::OkStatus();
}

// ObjectMeta (k8s.io.apimachinery.pkg.apis.meta.v1): the fields a client
// sets on a create. Server-set fields are ignored, as a create ignores them.
absl::StatusOr<Json> ObjectMeta(std::string_view data) {
  Json meta = Json::object();
  Reader r(data);
  while (!r.done()) {
    auto f = r.Next();
    if (!f.ok()) return f.status();
    std::string s(f->bytes);
    // proto2 optional strings arrive even when empty; JSON omits them.
    if (s.empty() && f->number != 11 && f->number != 12) continue;
    switch (f->number) {
      case 1:
        meta["name"] = s;
        break;
      case 2:
        meta["generateName"] = s;
        break;
      case 3:
        meta["namespace"] = s;
        break;
      case 6:
        meta["resourceVersion"] = s;
        break;
      case 11:
      case 12: {
        Json& m = meta[f->number == 11 ? "labels" : "annotations"];
        if (auto st = MapEntry(f->bytes, false, m); !st.ok()) return st;
        break;
      }
      case 14:
        meta["finalizers"].push_back(s);
        break;
      default:
        break;  // uid, timestamps, generation, ownerReferences, managedFields
    }
  }
  return meta;
}

absl::StatusOr<Json> Object(std::string_view kind, std::string_view raw) {
  Json o = {{"kind", std::string(kind)}, {"apiVersion", "v1"}};
  Reader r(raw);
  while (!r.done()) {
    auto f = r.Next();
    if (!f.ok()) return f.status();
    if (f->number == 1 && f->wire == 2) {
      auto meta = ObjectMeta(f->bytes);
      if (!meta.ok()) return meta.status();
      o["metadata"] = std::move(*meta);
      continue;
    }
    if (kind == "Namespace") {
      if (f->number == 2 && f->wire == 2) {  // NamespaceSpec: finalizers = 1
        Json spec = Json::object();
        Reader sr(f->bytes);
        while (!sr.done()) {
          auto g = sr.Next();
          if (!g.ok()) return g.status();
          if (g->number == 1 && g->wire == 2) spec["finalizers"].push_back(std::string(g->bytes));
        }
        o["spec"] = std::move(spec);
      }
    } else if (kind == "ConfigMap") {
      // data = 2, binaryData = 3, immutable = 4
      if ((f->number == 2 || f->number == 3) && f->wire == 2) {
        if (auto st = MapEntry(f->bytes, f->number == 3, o[f->number == 2 ? "data" : "binaryData"]); !st.ok())
          return st;
      } else if (f->number == 4 && f->wire == 0) {
        o["immutable"] = f->varint != 0;
      }
    } else {  // Secret: data = 2 (bytes), type = 3, stringData = 4, immutable = 5
      if ((f->number == 2 || f->number == 4) && f->wire == 2) {
        if (auto st = MapEntry(f->bytes, f->number == 2, o[f->number == 2 ? "data" : "stringData"]); !st.ok())
          return st;
      } else if (f->number == 3 && f->wire == 2 && !f->bytes.empty()) {
        o["type"] = std::string(f->bytes);
      } else if (f->number == 5 && f->wire == 0) {
        o["immutable"] = f->varint != 0;
      }
    }
  }
  if (!o.contains("metadata")) o["metadata"] = Json::object();
  return o;
}

}  // namespace

absl::StatusOr<Json> DecodeProtobufObject(std::string_view bytes) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (!bytes.starts_with(kMagic)) return absl::InvalidArgumentError("protobuf: no k8s envelope");
  Reader r(bytes.substr(kMagic.size()));
  std::string api_version, kind, encoding;
  std::string_view raw;
  while (!r.done()) {
    auto f = r.Next();
    if (!f.ok()) return f.status();
    if (f->wire != 2) continue;
    if (f->number == 1) {  // TypeMeta: apiVersion = 1, kind = 2
      Reader tr(f->bytes);
      while (!tr.done()) {
        auto g = tr.Next();
        if (!g.ok()) return g.status();
        if (g->number == 1 && g->wire == 2) api_version = std::string(g->bytes);
        if (g->number == 2 && g->wire == 2) kind = std::string(g->bytes);
      }
    } else if (f->number == 2) {
      raw = f->bytes;
    } else if (f->number == 3) {
      encoding = std::string(f->bytes);
    }
  }
  if (!encoding.empty())
    return absl::UnimplementedError(recon::StrCat("protobuf: content encoding ", encoding));
  if (api_version != "v1" || (kind != "Namespace" && kind != "ConfigMap" && kind != "Secret")) {
    return absl::UnimplementedError(recon::StrCat("protobuf: ", api_version, " ", kind, " is not decoded"));
  }
  return Object(kind, raw);
}

}  // namespace recon::sim
