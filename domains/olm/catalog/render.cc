#include "domains/olm/catalog/render.h"

#include <algorithm>
#include <map>

#include "base/strings.h"
#include "domains/olm/catalog/json_doc.h"
#include "domains/olm/catalog/loader.h"

namespace recon::olm {
namespace {

void Key(std::string* out, bool* first, std::string_view k) {
  if (!*first) out->push_back(',');
  *first = false;
  AppendJsonString(out, k);
  out->push_back(':');
}

void Str(std::string* out, bool* first, std::string_view k, const std::string& v, bool omit_empty = true) {
  if (omit_empty && v.empty()) return;
  Key(out, first, k);
  AppendJsonString(out, v);
}

absl::Status Props(std::string* out, bool* first, const DeclarativeConfig& cfg, std::vector<Property> props,
                   bool move_objects) {
  if (props.empty()) return absl::OkStatus();
  if (move_objects) {
    std::stable_partition(props.begin(), props.end(),
                          [](const Property& p) { return p.type != "olm.bundle.object"; });
  }
  Key(out, first, "properties");
  out->push_back('[');
  for (size_t i = 0; i < props.size(); ++i) {
    const Property& p = props[i];
    if (i) out->push_back(',');
    *out += "{\"type\":";
    AppendJsonString(out, p.type);
    *out += ",\"value\":";
    if (p.is_span) {
      if (p.dropped) return absl::FailedPreconditionError("payloads were dropped at load time");
      auto node = ParseSpan(cfg, p.span);
      if (!node.ok()) return node.status();
      AppendJson(out, *node);
    } else {
      *out += p.value.empty() ? "null" : p.value;
    }
    out->push_back('}');
  }
  out->push_back(']');
  return absl::OkStatus();
}

namespace {

absl::StatusOr<std::string> PackageBlob(const DeclarativeConfig& cfg, const Package& pkg) {
  std::string s = "{";
  bool first = true;
  Str(&s, &first, "schema", "olm.package");
  Str(&s, &first, "name", pkg.name);
  Str(&s, &first, "defaultChannel", pkg.default_channel);
  if (pkg.has_icon) {
    Key(&s, &first, "icon");
    s += "{\"base64data\":";
    AppendJsonString(&s, pkg.icon_data);
    s += ",\"mediatype\":";
    AppendJsonString(&s, pkg.icon_mediatype);
    s += "}";
  }
  Str(&s, &first, "description", pkg.description);
  if (auto st = Props(&s, &first, cfg, pkg.properties, false); !st.ok()) return st;
  return s + "}";
}

absl::StatusOr<std::string> ChannelBlob(const DeclarativeConfig& cfg, const Channel& c) {
  std::string s = "{";
  bool first = true;
  Str(&s, &first, "schema", "olm.channel");
  Str(&s, &first, "name", c.name);
  Str(&s, &first, "package", c.package);
  Key(&s, &first, "entries");
  s += "[";
  for (size_t i = 0; i < c.entries.size(); ++i) {
    const ChannelEntry& e = c.entries[i];
    if (i) s += ",";
    s += "{";
    bool f2 = true;
    Str(&s, &f2, "name", e.name, false);
    Str(&s, &f2, "replaces", e.replaces);
    if (!e.skips.empty()) {
      Key(&s, &f2, "skips");
      s += "[";
      for (size_t k = 0; k < e.skips.size(); ++k) {
        if (k) s += ",";
        AppendJsonString(&s, e.skips[k]);
      }
      s += "]";
    }
    Str(&s, &f2, "skipRange", e.skip_range);
    s += "}";
  }
  s += "]";
  if (auto st = Props(&s, &first, cfg, c.properties, false); !st.ok()) return st;
  return s + "}";
}

absl::StatusOr<std::string> BundleBlob(const DeclarativeConfig& cfg, const Bundle& b) {
  std::string s = "{";
  bool first = true;
  Str(&s, &first, "schema", "olm.bundle");
  Str(&s, &first, "name", b.name);
  Str(&s, &first, "package", b.package);
  Str(&s, &first, "image", b.image);
  if (auto st = Props(&s, &first, cfg, b.properties, true); !st.ok()) return st;
  if (!b.related_images.empty()) {
    auto ri = b.related_images;
    std::stable_sort(ri.begin(), ri.end(), [](const auto& x, const auto& y) { return x.image < y.image; });
    Key(&s, &first, "relatedImages");
    s += "[";
    for (size_t i = 0; i < ri.size(); ++i) {
      if (i) s += ",";
      s += "{";
      bool f2 = true;
      Str(&s, &f2, "name", ri[i].name, false);
      Str(&s, &f2, "image", ri[i].image, false);
      s += "}";
    }
    s += "]";
  }
  return s + "}";
}

std::string DeprecationBlob(const Deprecation& d) {
  std::string s = "{";
  bool first = true;
  Str(&s, &first, "schema", "olm.deprecations");
  Str(&s, &first, "package", d.package);
  Key(&s, &first, "entries");
  s += "[";
  for (size_t i = 0; i < d.entries.size(); ++i) {
    const auto& e = d.entries[i];
    if (i) s += ",";
    s += "{\"reference\":{";
    bool f2 = true;
    Str(&s, &f2, "schema", e.schema, false);
    Str(&s, &f2, "name", e.name);
    s += "},\"message\":";
    AppendJsonString(&s, e.message);
    s += "}";
  }
  return s + "]}";
}

}  // namespace

absl::StatusOr<std::vector<std::string>> Blobs(const DeclarativeConfig& cfg) {
  struct Group {
    const Package* pkg = nullptr;
    std::vector<const Channel*> channels;
    std::vector<const Bundle*> bundles;
    std::vector<const Other*> others;
    std::vector<const Deprecation*> deprecations;
  };
  std::map<std::string, Group> groups;
  std::vector<const Other*> loose;
  for (const auto& p : cfg.packages) groups[p.name].pkg = &p;
  for (const auto& c : cfg.channels) {
    if (!c.package.empty()) groups[c.package].channels.push_back(&c);
  }
  for (const auto& b : cfg.bundles) {
    if (!b.package.empty()) groups[b.package].bundles.push_back(&b);
  }
  for (const auto& d : cfg.deprecations) {
    if (!d.package.empty()) groups[d.package].deprecations.push_back(&d);
  }
  for (const auto& o : cfg.others) {
    if (o.package.empty()) {
      loose.push_back(&o);
    } else {
      groups[o.package].others.push_back(&o);
    }
  }
  std::vector<std::string> out;
  auto add = [&out](absl::StatusOr<std::string> blob) {
    if (!blob.ok()) return blob.status();
    out.push_back(std::move(*blob));
    return absl::OkStatus();
  };
  for (auto& [name, g] : groups) {
    if (g.pkg) {
      if (auto st = add(PackageBlob(cfg, *g.pkg)); !st.ok()) return st;
    }
    std::stable_sort(g.channels.begin(), g.channels.end(),
                     [](auto* a, auto* b) { return a->name < b->name; });
    for (const Channel* c : g.channels)
      if (auto st = add(ChannelBlob(cfg, *c)); !st.ok()) return st;
    std::stable_sort(g.bundles.begin(), g.bundles.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (const Bundle* b : g.bundles)
      if (auto st = add(BundleBlob(cfg, *b)); !st.ok()) return st;
    std::stable_sort(g.others.begin(), g.others.end(),
                     [](auto* a, auto* b) { return a->schema < b->schema; });
    for (const Other* o : g.others) out.push_back(o->json);
    for (const Deprecation* d : g.deprecations) out.push_back(DeprecationBlob(*d));
  }
  for (const Other* o : loose) out.push_back(o->json);
  return out;
}

bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  static const char* kSpecial[] = {"true", "false", "null", "~", "yes", "no", "on", "off", "y", "n"};
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  for (const char* k : kSpecial) {
    if (lower == k) return true;
  }
  if (std::string_view("-?:,[]{}#&*!|>'\"%@` ").find(s[0]) != std::string_view::npos) return true;
  if (s.back() == ' ' || s.back() == ':') return true;
  bool numeric_like = true;
  for (char c : s) {
    if (c == '\n' || c == '\t' || c == '\r' || static_cast<unsigned char>(c) < 0x20) return true;
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' || c == '_' ||
          c == 'x' || c == 'o')) {
      numeric_like = false;
    }
  }
  // 1.2.3 is a string in YAML 1.1 and 1.2 alike; 1.10 or 0755 would not be.
  if (numeric_like && std::count(s.begin(), s.end(), '.') < 2) return true;
  return s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos;
}

void Scalar(std::string* out, const Node& n) {
  if (n.style == Node::Style::kPlain) {
    *out += n.text;
  } else if (NeedsQuotes(n.text)) {
    AppendJsonString(out, n.text);
  } else {
    *out += n.text;
  }
}

bool Inline(const Node& n) {
  return n.kind == Node::Kind::kScalar || (n.kind == Node::Kind::kMap && n.items.empty()) ||
         (n.kind == Node::Kind::kSeq && n.elems.empty());
}

void InlineValue(std::string* out, const Node& n) {
  if (n.kind == Node::Kind::kScalar) {
    Scalar(out, n);
  } else {
    *out += n.kind == Node::Kind::kMap ? "{}" : "[]";
  }
}

void Body(std::string* out, const Node& n, int indent, bool first_inline);

void MapBody(std::string* out, const Node& n, int indent, bool first_inline) {
  std::vector<const std::pair<std::string, Node>*> items;
  for (const auto& kv : n.items) items.push_back(&kv);
  std::stable_sort(items.begin(), items.end(), [](auto* a, auto* b) { return a->first < b->first; });
  bool first = true;
  for (const auto* kv : items) {
    if (!(first && first_inline)) out->append(static_cast<size_t>(indent), ' ');
    first = false;
    Node key;
    key.text = kv->first;
    Scalar(out, key);
    *out += ":";
    if (Inline(kv->second)) {
      *out += " ";
      InlineValue(out, kv->second);
      *out += "\n";
    } else {
      *out += "\n";
      Body(out, kv->second, kv->second.kind == Node::Kind::kSeq ? indent : indent + 2, false);
    }
  }
}

void Body(std::string* out, const Node& n, int indent, bool first_inline) {
  if (n.kind == Node::Kind::kMap) {
    MapBody(out, n, indent, first_inline);
    return;
  }
  for (const Node& e : n.elems) {
    out->append(static_cast<size_t>(indent), ' ');
    *out += "- ";
    if (Inline(e)) {
      InlineValue(out, e);
      *out += "\n";
    } else if (e.kind == Node::Kind::kMap) {
      MapBody(out, e, indent + 2, true);
    } else {
      *out += "\n";
      Body(out, e, indent + 2, false);
    }
  }
}

}  // namespace

void AppendYaml(std::string* out, const Node& n, int indent) {
  if (Inline(n)) {
    out->append(static_cast<size_t>(indent), ' ');
    InlineValue(out, n);
    *out += "\n";
    return;
  }
  Body(out, n, indent, false);
}

absl::StatusOr<std::string> RenderJson(const DeclarativeConfig& cfg) {
  auto blobs = Blobs(cfg);
  if (!blobs.ok()) return blobs.status();
  std::string out;
  for (const auto& b : *blobs) StrAppend(&out, b, "\n");
  return out;
}

absl::StatusOr<std::string> RenderYaml(const DeclarativeConfig& cfg) {
  auto blobs = Blobs(cfg);
  if (!blobs.ok()) return blobs.status();
  std::string out;
  for (const auto& b : *blobs) {
    auto node = ParseJsonText(b);
    if (!node.ok()) return node.status();
    out += "---\n";
    AppendYaml(&out, *node, 0);
  }
  return out;
}

}  // namespace recon::olm
