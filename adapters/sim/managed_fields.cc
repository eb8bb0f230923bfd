#include "adapters/sim/managed_fields.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "adapters/sim/api.h"
#include "base/strings.h"

namespace recon::sim {
namespace {

using engine::Json;

constexpr size_t kMaxManagerBytes = 128;  // validation.FieldManagerMaxLength

// A set of field paths as a tree: a node is in the set when `member`;
// children are keyed by path element ("f:name", "k:{...}", "v:value").
struct Node {
  bool member = false;
  std::map<std::string, Node> children;
  bool Empty() const { return !member && children.empty(); }
};

void Union(Node& a, const Node& b) {
  a.member |= b.member;
  for (const auto& [k, c] : b.children) Union(a.children[k], c);
}

void Difference(Node& a, const Node& b) {
  if (b.member) a.member = false;
  for (auto it = a.children.begin(); it != a.children.end();) {
    auto other = b.children.find(it->first);
    if (other != b.children.end()) Difference(it->second, other->second);
    it = it->second.Empty() ? a.children.erase(it) : std::next(it);
  }
}

Node FromFieldsV1(const Json& j) {
  Node n;
  if (!j.is_object()) return n;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == ".") {
      n.member = true;
      continue;
    }
    Node c = FromFieldsV1(it.value());
    if (c.children.empty()) c.member = true;  // a leaf: {}
    n.children[it.key()] = std::move(c);
  }
  return n;
}

// SMD's order: fields, then keys, then values, then indexes.
int Rank(const std::string& k) {
  switch (k.empty() ? ' ' : k[0]) {
    case 'f':
      return 0;
    case 'k':
      return 1;
    case 'v':
      return 2;
    default:
      return 3;
  }
}

Json ToFieldsV1(const Node& n) {
  Json out = Json::object();
  if (n.member && !n.children.empty()) out["."] = Json::object();
  std::vector<const std::pair<const std::string, Node>*> kids;
  for (const auto& kv : n.children) kids.push_back(&kv);
  std::stable_sort(kids.begin(), kids.end(),
                   [](auto* a, auto* b) { return Rank(a->first) < Rank(b->first); });
  for (const auto* kv : kids) out[kv->first] = ToFieldsV1(kv->second);
  return out;
}

// How a list's items are addressed: by key fields (k:), by value (v:), or
// not at all (atomic: the list is one leaf).
struct ListKind {
  enum { kAtomic, kMap, kSet } kind = kAtomic;
  std::vector<std::string> keys;
};

// Built-in types' patch merge keys the agents' objects use (no schema here).
ListKind BuiltinListKind(std::string_view field) {
  static const std::map<std::string, std::string, std::less<>> kKeys = {
      {"conditions", "type"},          {"containers", "name"},      {"initContainers", "name"},
      {"ephemeralContainers", "name"}, {"volumes", "name"},         {"env", "name"},
      {"volumeMounts", "mountPath"},   {"imagePullSecrets", "name"}};
  ListKind k;
  auto it = kKeys.find(field);
  if (it != kKeys.end()) {
    k.kind = ListKind::kMap;
    k.keys = {it->second};
  }
  return k;
}

ListKind ListKindOf(const crd::SchemaNode* s, std::string_view field, bool builtin) {
  if (s == nullptr) return builtin ? BuiltinListKind(field) : ListKind{};
  ListKind k;
  if (s->list_type == "map" && !s->list_map_keys.empty()) {
    k.kind = ListKind::kMap;
    k.keys = s->list_map_keys;
  } else if (s->list_type == "set") {
    k.kind = ListKind::kSet;
  }
  return k;
}

struct Ctx {
  bool builtin = false;  // no CRD schema: the built-in merge-key table
};

// The path elements of a value's children with their values and schemas;
// none for a scalar or an atomic list (and for a keyed list whose items
// lack their keys: treated as atomic).
struct Child {
  std::string key;
  const Json* value;
  const crd::SchemaNode* schema;
  std::string field;
};

std::vector<Child> ChildrenOf(const Json& v, const crd::SchemaNode* s, std::string_view field,
                              const Ctx& ctx) {
  std::vector<Child> out;
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      out.push_back({"f:" + it.key(), &it.value(), s ? s->Field(it.key()) : nullptr, it.key()});
    return out;
  }
  if (!v.is_array()) return out;
  ListKind kind = ListKindOf(s, field, ctx.builtin);
  const crd::SchemaNode* items = s && s->items ? s->items.get() : nullptr;
  if (kind.kind == ListKind::kSet) {
    for (const Json& e : v) out.push_back({"v:" + engine::Dump(e), &e, items, ""});
    return out;
  }
  if (kind.kind != ListKind::kMap) return out;
  std::vector<std::string> keys = kind.keys;
  std::sort(keys.begin(), keys.end());
  for (const Json& e : v) {
    if (!e.is_object()) return {};
    Json id = Json::object();
    for (const std::string& k : keys) {
      if (!e.contains(k)) return {};
      id[k] = e[k];
    }
    out.push_back({"k:" + engine::Dump(id), &e, items, ""});
  }
  return out;
}

bool IsContainer(const Json& v, const crd::SchemaNode* s, std::string_view field, const Ctx& ctx) {
  if (v.is_object()) return true;
  return v.is_array() && ListKindOf(s, field, ctx.builtin).kind != ListKind::kAtomic;
}

void AddAll(const Json& v, const crd::SchemaNode* s, std::string_view field, const Ctx& ctx, Node* n) {
  n->member = true;
  for (const Child& c : ChildrenOf(v, s, field, ctx))
    AddAll(*c.value, c.schema, c.field, ctx, &n->children[c.key]);
}

void Prune(Node& n) {
  for (auto it = n.children.begin(); it != n.children.end();) {
    Prune(it->second);
    it = it->second.Empty() ? n.children.erase(it) : std::next(it);
  }
}

// The fields `next` added or modified (`changed`) and those it removed, at
// one path. Both values present.
void Compare(const Json& old, const Json& next, const crd::SchemaNode* s, std::string_view field,
             const Ctx& ctx, Node* changed, Node* removed) {
  bool old_c = IsContainer(old, s, field, ctx), next_c = IsContainer(next, s, field, ctx);
  if (!old_c || !next_c || old.type() != next.type()) {
    if (SameJson(old, next)) return;
    changed->member = true;  // a modified leaf, or a value of another shape
    if (old_c) {
      for (const Child& c : ChildrenOf(old, s, field, ctx))
        AddAll(*c.value, c.schema, c.field, ctx, &removed->children[c.key]);
    }
    if (next_c) {
      for (const Child& c : ChildrenOf(next, s, field, ctx))
        AddAll(*c.value, c.schema, c.field, ctx, &changed->children[c.key]);
    }
    return;
  }
  std::vector<Child> before = ChildrenOf(old, s, field, ctx), after = ChildrenOf(next, s, field, ctx);
  // A keyed list whose items lost their keys reads as atomic on one side.
  if ((before.empty() && !old.empty()) || (after.empty() && !next.empty())) {
    if (!SameJson(old, next)) changed->member = true;
    return;
  }
  std::map<std::string, const Child*> was;
  for (const Child& c : before) was[c.key] = &c;
  for (const Child& c : after) {
    auto it = was.find(c.key);
    if (it == was.end()) {
      AddAll(*c.value, c.schema, c.field, ctx, &changed->children[c.key]);
      continue;
    }
    Compare(*it->second->value, *c.value, c.schema, c.field, ctx, &changed->children[c.key],
            &removed->children[c.key]);
    was.erase(it);
  }
  for (const auto& [key, c] : was) AddAll(*c->value, c->schema, c->field, ctx, &removed->children[key]);
}

// What field ownership never covers (fieldmanager's stripMeta): the
// identity and server-set metadata, and metadata itself as a member.
void StripMeta(Node& root) {
  root.children.erase("f:apiVersion");
  root.children.erase("f:kind");
  auto md = root.children.find("f:metadata");
  if (md == root.children.end()) return;
  md->second.member = false;
  for (const char* f : {"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName",
                        "generation", "managedFields", "resourceVersion"}) {
    md->second.children.erase(recon::StrCat("f:", f));
  }
  if (md->second.Empty()) root.children.erase(md);
}

// The part of an object a write may own: everything but status for a
// main-resource write when status is a subresource; only status for a
// status write.
Json View(const Json* object, const FieldManagerWrite& w) {
  if (object == nullptr || !object->is_object()) return Json::object();
  if (w.subresource == "status") {
    Json v = Json::object();
    if (object->contains("status")) v["status"] = (*object)["status"];
    return v;
  }
  Json v = *object;
  if (w.status_subresource) v.erase("status");
  return v;
}

struct Entry {
  std::string manager, operation, api_version, time, subresource;
  Node set;
  auto Identity() const {
    // Apply entries are one per manager whatever the version (BuildManagerIdentifier).
    return std::make_tuple(manager, operation, operation == "Apply" ? std::string() : api_version,
                           subresource);
  }
};

std::vector<Entry> Decode(const Json& list) {
  std::vector<Entry> out;
  if (!list.is_array()) return out;
  for (const Json& e : list) {
    if (!e.is_object()) continue;
    Entry x;
    x.manager = engine::GetString(e, {"manager"});
    x.operation = engine::GetString(e, {"operation"});
    x.api_version = engine::GetString(e, {"apiVersion"});
    x.time = engine::GetString(e, {"time"});
    x.subresource = engine::GetString(e, {"subresource"});
    x.set = FromFieldsV1(engine::Path(e, {"fieldsV1"}));
    out.push_back(std::move(x));
  }
  return out;
}

Json Encode(const Entry& e) {
  Json j = Json::object();
  if (!e.manager.empty()) j["manager"] = e.manager;
  j["operation"] = e.operation;
  if (!e.api_version.empty()) j["apiVersion"] = e.api_version;
  if (!e.time.empty()) j["time"] = e.time;
  j["fieldsType"] = "FieldsV1";
  j["fieldsV1"] = ToFieldsV1(e.set);
  if (!e.subresource.empty()) j["subresource"] = e.subresource;
  return j;
}

}  // namespace

absl::StatusOr<std::string> RequestFieldManager(std::string_view field_manager, std::string_view user_agent,
                                                std::string_view options_kind) {
  if (!field_manager.empty()) {
    std::string prefix = recon::StrCat(options_kind, ".meta.k8s.io \"\" is invalid: fieldManager: ");
    if (field_manager.size() > kMaxManagerBytes)
      return absl::InvalidArgumentError(
          recon::StrCat(prefix, "Too long: may not be more than ", kMaxManagerBytes, " bytes"));
    for (size_t i = 0; i < field_manager.size(); ++i) {
      auto c = static_cast<unsigned char>(field_manager[i]);
      if (c < 0x20 || c == 0x7f) {
        return absl::InvalidArgumentError(recon::StrCat(prefix, "Invalid value: \"", field_manager,
                                                        "\": invalid character at position ", i));
      }
    }
    return std::string(field_manager);
  }
  std::string out;
  for (char ch : user_agent.substr(0, user_agent.find('/'))) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) continue;
    if (out.size() + 1 > kMaxManagerBytes) break;
    out.push_back(ch);
  }
  return out;
}

void TrackManagedFields(const Json* live, Json& next, const FieldManagerWrite& write) {
  if (!next.is_object()) return;
  if (!next["metadata"].is_object()) next["metadata"] = Json::object();
  const Json& own = engine::Path(next, {"metadata", "managedFields"});
  bool from_request = write.subresource.empty() && own.is_array() && !own.empty();
  std::vector<Entry> entries = Decode(from_request ? own
                                      : live       ? engine::Path(*live, {"metadata", "managedFields"})
                                                   : Json());

  Ctx ctx{write.schema == nullptr};
  Json before = View(live, write), after = View(&next, write);
  Node changed, removed;
  Compare(before, after, write.schema, "", ctx, &changed, &removed);
  changed.member = removed.member = false;  // the object itself is never a field
  StripMeta(changed);
  StripMeta(removed);
  Prune(changed);
  Prune(removed);

  Entry self;
  self.manager = write.manager;
  self.operation = "Update";
  self.api_version = engine::GetString(next, {"apiVersion"});
  self.subresource = write.subresource;
  Entry* mine = nullptr;
  for (Entry& e : entries) {
    if (e.Identity() == self.Identity()) {
      mine = &e;
      continue;
    }
    // A forced update: what this write changed is no longer another's.
    Difference(e.set, changed);
    Difference(e.set, removed);
  }
  if (mine != nullptr) Difference(mine->set, removed);
  Node taken = changed;
  Difference(taken, removed);
  if (!taken.Empty()) {
    if (mine == nullptr) {
      entries.push_back(std::move(self));
      mine = &entries.back();
    }
    Union(mine->set, taken);
    mine->time = write.time;
  }
  std::erase_if(entries, [](const Entry& e) { return e.set.Empty(); });
  // The order the server encodes them in (sortEncodedManagedFields).
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.operation, a.time, a.manager, a.api_version, a.subresource) <
           std::tie(b.operation, b.time, b.manager, b.api_version, b.subresource);
  });
  Json list = Json::array();
  for (const Entry& e : entries) list.push_back(Encode(e));
  if (list.empty()) {
    next["metadata"].erase("managedFields");
  } else {
    next["metadata"]["managedFields"] = std::move(list);
  }
}

}  // namespace recon::sim
