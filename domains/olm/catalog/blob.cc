// Blob tree → typed declcfg structs: the Meta envelope and the four schemas.
#include <algorithm>
#include <map>

#include "base/strings.h"
#include "domains/olm/catalog/loader.h"
#include "domains/olm/catalog/semver.h"

namespace recon::olm {
namespace {

// Unicode simple case folding for the characters that can fold into ASCII
// keys (ſ → s, K (Kelvin) → k); everything else ASCII-lowercased.
std::string Fold(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0xC5 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF) {
      out += 's';
      ++i;
    } else if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x84 &&
               static_cast<unsigned char>(s[i + 2]) == 0xAA) {
      out += 'k';
      i += 2;
    } else {
      out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c);
    }
  }
  return out;
}

// encoding/json field lookup: an exact key wins, else a case-folded one.
const Node* Field(const Node& map, std::string_view key) {
  const Node* folded = nullptr;
  std::string fk;
  for (const auto& [k, v] : map.items) {
    if (k == key) return &v;
    if (!folded && k.size() == key.size()) {
      if (fk.empty()) fk = Fold(key);
      if (Fold(k) == fk) folded = &v;
    }
  }
  return folded;
}

const char* KindName(const Node& n) {
  switch (n.kind) {
    case Node::Kind::kMap:
      return "object";
    case Node::Kind::kSeq:
      return "array";
    case Node::Kind::kSpan:
      return "object";
    case Node::Kind::kScalar:
      if (n.from_json && n.style == Node::Style::kPlain)
        return n.text == "true" || n.text == "false" ? "bool" : "number";
      return "string";
  }
  return "value";
}

class Typed {
 public:
  explicit Typed(std::string_view what) : what_(what) {}

  // A string field: absent/null → "", YAML scalars as written.
  absl::Status Str(const Node& parent, std::string_view key, std::string* out) {
    const Node* n = Field(parent, key);
    if (!n || n->IsNull()) return absl::OkStatus();
    if (n->kind != Node::Kind::kScalar || (n->from_json && n->style == Node::Style::kPlain)) {
      return Err(key, StrCat("cannot unmarshal ", KindName(*n), " into a string"));
    }
    *out = n->text;
    return absl::OkStatus();
  }
  // A list field; null → nullptr.
  absl::StatusOr<const Node*> Seq(const Node& parent, std::string_view key) {
    const Node* n = Field(parent, key);
    if (!n || n->IsNull()) return nullptr;
    if (n->kind != Node::Kind::kSeq)
      return Err(key, StrCat("cannot unmarshal ", KindName(*n), " into an array"));
    return n;
  }
  absl::StatusOr<const Node*> Map(const Node& parent, std::string_view key) {
    const Node* n = Field(parent, key);
    if (!n || n->IsNull()) return nullptr;
    if (n->kind != Node::Kind::kMap && n->kind != Node::Kind::kSpan) {
      return Err(key, StrCat("cannot unmarshal ", KindName(*n), " into an object"));
    }
    return n;
  }
  absl::Status Err(std::string_view key, std::string_view msg) {
    return absl::InvalidArgumentError(StrCat("parse ", what_, ": field ", GoQuote(key), ": ", msg));
  }

 private:
  std::string what_;
};

#define RECON_RETURN_IF_ERROR(expr) \
  do {                              \
    absl::Status _st = (expr);      \
    if (!_st.ok()) return _st;      \
  } while (0)

#define RECON_ASSIGN_SEQ(var, expr)             \
  auto var##_or = (expr);                       \
  if (!var##_or.ok()) return var##_or.status(); \
  const Node* var = *var##_or

absl::Status Properties(Typed& t, const Node& blob, std::vector<Property>* out) {
  RECON_ASSIGN_SEQ(props, t.Seq(blob, "properties"));
  if (!props) return absl::OkStatus();
  // Exact capacity: push_back's doubling left ~40% of each bundle's
  // property array unused, a visible share of a large catalog's memory.
  out->reserve(out->size() + props->elems.size());
  for (const Node& p : props->elems) {
    if (p.kind != Node::Kind::kMap) return t.Err("properties", "cannot unmarshal element into an object");
    Property prop;
    RECON_RETURN_IF_ERROR(t.Str(p, "type", &prop.type));
    const Node* v = Field(p, "value");
    if (v && v->kind == Node::Kind::kSpan) {
      prop.is_span = true;
      prop.span = v->span;
    } else if (v) {
      AppendJson(&prop.value, *v);
    }
    out->push_back(std::move(prop));
  }
  return absl::OkStatus();
}

absl::Status ToPackage(const Node& blob, Package* p) {
  Typed t("package");
  RECON_RETURN_IF_ERROR(t.Str(blob, "name", &p->name));
  RECON_RETURN_IF_ERROR(t.Str(blob, "defaultChannel", &p->default_channel));
  RECON_RETURN_IF_ERROR(t.Str(blob, "description", &p->description));
  auto icon = t.Map(blob, "icon");
  if (!icon.ok()) return icon.status();
  if (*icon && (*icon)->kind == Node::Kind::kMap) {
    p->has_icon = true;
    Typed ti("package");
    RECON_RETURN_IF_ERROR(ti.Str(**icon, "base64data", &p->icon_data));
    RECON_RETURN_IF_ERROR(ti.Str(**icon, "mediatype", &p->icon_mediatype));
  }
  return Properties(t, blob, &p->properties);
}

absl::Status ToChannel(const Node& blob, Channel* c) {
  Typed t("channel");
  RECON_RETURN_IF_ERROR(t.Str(blob, "name", &c->name));
  RECON_RETURN_IF_ERROR(t.Str(blob, "package", &c->package));
  RECON_ASSIGN_SEQ(entries, t.Seq(blob, "entries"));
  if (entries) {
    c->entries.reserve(entries->elems.size());
    for (const Node& e : entries->elems) {
      if (e.kind != Node::Kind::kMap) return t.Err("entries", "cannot unmarshal element into an object");
      ChannelEntry ce;
      RECON_RETURN_IF_ERROR(t.Str(e, "name", &ce.name));
      RECON_RETURN_IF_ERROR(t.Str(e, "replaces", &ce.replaces));
      RECON_RETURN_IF_ERROR(t.Str(e, "skipRange", &ce.skip_range));
      RECON_ASSIGN_SEQ(skips, t.Seq(e, "skips"));
      if (skips) {
        for (const Node& s : skips->elems) {
          if (s.kind != Node::Kind::kScalar ||
              (s.from_json && s.style == Node::Style::kPlain && !s.IsNull())) {
            return t.Err("skips", "cannot unmarshal element into a string");
          }
          ce.skips.push_back(s.IsNull() ? "" : s.text);
        }
      }
      c->entries.push_back(std::move(ce));
    }
  }
  return Properties(t, blob, &c->properties);
}

absl::Status ToBundle(const Node& blob, Bundle* b) {
  Typed t("bundle");
  RECON_RETURN_IF_ERROR(t.Str(blob, "name", &b->name));
  RECON_RETURN_IF_ERROR(t.Str(blob, "package", &b->package));
  RECON_RETURN_IF_ERROR(t.Str(blob, "image", &b->image));
  RECON_ASSIGN_SEQ(related, t.Seq(blob, "relatedImages"));
  if (related) {
    b->related_images.reserve(related->elems.size());
    for (const Node& r : related->elems) {
      if (r.kind != Node::Kind::kMap)
        return t.Err("relatedImages", "cannot unmarshal element into an object");
      RelatedImage ri;
      RECON_RETURN_IF_ERROR(t.Str(r, "name", &ri.name));
      RECON_RETURN_IF_ERROR(t.Str(r, "image", &ri.image));
      b->related_images.push_back(std::move(ri));
    }
  }
  RECON_RETURN_IF_ERROR(Properties(t, blob, &b->properties));
  RECON_ASSIGN_SEQ(props, t.Seq(blob, "properties"));
  for (size_t i = 0; i < b->properties.size(); ++i) {
    const Property& prop = b->properties[i];
    if (prop.type == "olm.bundle.object") b->has_objects = true;
    if (prop.type != "olm.package") continue;
    PackageProperty pp;
    const Node* v = Field(props->elems[i], "value");
    if (!v || v->kind != Node::Kind::kMap) {
      pp.error =
          v ? StrCat("json: cannot unmarshal ", KindName(*v), " into Go value of type property.Package")
            : "unexpected end of JSON input";
    } else {
      Typed tp("olm.package");
      absl::Status st = tp.Str(*v, "packageName", &pp.package_name);
      if (st.ok()) st = tp.Str(*v, "version", &pp.version);
      if (st.ok()) st = tp.Str(*v, "release", &pp.release);
      if (!st.ok()) pp.error = std::string(Sv(st.message()));
    }
    b->package_props.push_back(std::move(pp));
  }
  return absl::OkStatus();
}

absl::Status ToDeprecation(const Node& blob, Deprecation* d) {
  Typed t("deprecation");
  RECON_RETURN_IF_ERROR(t.Str(blob, "package", &d->package));
  RECON_ASSIGN_SEQ(entries, t.Seq(blob, "entries"));
  if (entries) {
    for (const Node& e : entries->elems) {
      if (e.kind != Node::Kind::kMap) return t.Err("entries", "cannot unmarshal element into an object");
      DeprecationEntry de;
      auto ref = t.Map(e, "reference");
      if (!ref.ok()) return ref.status();
      if (*ref) {
        RECON_RETURN_IF_ERROR(t.Str(**ref, "schema", &de.schema));
        RECON_RETURN_IF_ERROR(t.Str(**ref, "name", &de.name));
      }
      RECON_RETURN_IF_ERROR(t.Str(e, "message", &de.message));
      d->entries.push_back(std::move(de));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AddBlob(Node&& blob, const Location& loc, DeclarativeConfig* cfg) {
  if (blob.kind != Node::Kind::kMap) {
    return absl::InvalidArgumentError(StrCat("cannot unmarshal ", KindName(blob), " into an object"));
  }
  // Meta envelope: schema/package/name case-insensitively, no folded duplicates.
  std::map<std::string, std::vector<std::string>> groups;
  for (const auto& [k, v] : blob.items) groups[Fold(k)].push_back(k);
  std::string dup_errors;
  for (auto& [folded, keys] : groups) {
    if (keys.size() < 2) continue;
    std::sort(keys.begin(), keys.end());
    std::string list;
    for (const auto& k : keys) StrAppend(&list, list.empty() ? "" : " ", k);
    StrAppend(&dup_errors, dup_errors.empty() ? "" : "\n", "duplicate keys for key ", GoQuote(folded), ": [",
              list, "]");
  }
  if (!dup_errors.empty()) return absl::InvalidArgumentError(dup_errors);
  std::string meta[3];
  const char* meta_keys[3] = {"schema", "package", "name"};
  for (int i = 0; i < 3; ++i) {
    for (const auto& [k, v] : blob.items) {
      if (Fold(k) != meta_keys[i]) continue;
      if (v.IsNull()) continue;
      if (v.kind != Node::Kind::kScalar || (v.from_json && v.style == Node::Style::kPlain)) {
        return absl::InvalidArgumentError(
            StrCat("parse meta: field ", GoQuote(meta_keys[i]), " is not a string"));
      }
      meta[i] = v.text;
    }
  }
  if (meta[0].empty()) {
    std::string json;
    AppendJson(&json, blob);
    return absl::InvalidArgumentError(StrCat("object '", json, "' is missing root schema field"));
  }
  const std::string& schema = meta[0];
  if (schema == "olm.package") {
    Package p;
    p.loc = loc;
    RECON_RETURN_IF_ERROR(ToPackage(blob, &p));
    cfg->packages.push_back(std::move(p));
  } else if (schema == "olm.channel") {
    Channel c;
    c.loc = loc;
    RECON_RETURN_IF_ERROR(ToChannel(blob, &c));
    cfg->channels.push_back(std::move(c));
  } else if (schema == "olm.bundle") {
    Bundle b;
    b.loc = loc;
    RECON_RETURN_IF_ERROR(ToBundle(blob, &b));
    cfg->bundles.push_back(std::move(b));
  } else if (schema == "olm.deprecations") {
    Deprecation d;
    d.loc = loc;
    RECON_RETURN_IF_ERROR(ToDeprecation(blob, &d));
    cfg->deprecations.push_back(std::move(d));
  } else {
    Other o;
    o.loc = loc;
    o.schema = schema;
    o.package = meta[1];
    o.name = meta[2];
    AppendJson(&o.json, blob);
    cfg->others.push_back(std::move(o));
  }
  return absl::OkStatus();
}

}  // namespace recon::olm
