#include "domains/olm/resolve/resolver.h"

#include <algorithm>
#include <map>

#include "base/strings.h"
#include "domains/olm/resolve/solver.h"

namespace recon::olm {
namespace {

// "a", "a and b", "a, b and c" (upstream's list rendering in messages).
std::string AndList(const std::vector<std::string>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    StrAppend(&out, i == 0 ? "" : i + 1 == ids.size() ? " and " : ", ", ids[i]);
  }
  return out;
}

std::string OrList(const std::vector<std::string>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    StrAppend(&out, i == 0 ? "" : i + 1 == ids.size() ? " or " : ", ", ids[i]);
  }
  return out;
}

struct VarInfo {
  int catalog = -1;  // -1: @existing
  int entry = -1;    // entry index in the catalog, or existing index
  const Entry* e = nullptr;
  std::string subscription, why, starting_csv, replaces;
  bool expanded = false;
};

class Builder {
 public:
  // Without `messages` the constraints carry no texts: the search does not
  // read them, only an unsatisfiable answer does (Resolve then builds again).
  Builder(const ResolveInput& in, bool messages) : in_(in), msgs_(messages) {
    for (size_t i = 0; i < in.catalogs.size(); ++i) cats_.push_back(static_cast<int>(i));
    // §8 catalog sort without the "preferred" rule (applied per dependency).
    std::sort(cats_.begin(), cats_.end(), [&](int a, int b) {
      const CatalogRef &x = in.catalogs[a], &y = in.catalogs[b];
      if (x.priority != y.priority) return x.priority > y.priority;
      bool xs = x.ns == in.ns, ys = y.ns == in.ns;
      if (xs != ys) return xs;
      if (x.name != y.name) return x.name < y.name;
      return x.ns < y.ns;
    });
  }

  absl::StatusOr<ResolveResult> Run() {
    // @existing, sorted by name.
    std::vector<int> ex(in_.existing.size());
    for (size_t i = 0; i < ex.size(); ++i) ex[i] = static_cast<int>(i);
    std::sort(ex.begin(), ex.end(),
              [&](int a, int b) { return in_.existing[a].entry.name < in_.existing[b].entry.name; });
    existing_var_.assign(in_.existing.size(), -1);
    for (int i : ex) {
      const ExistingCsv& x = in_.existing[i];
      int v = NewVar(StrCat("@existing/", in_.ns, "//", x.entry.name), {-1, i, &x.entry});
      existing_var_[i] = v;
      if (x.subscription.empty()) {
        p_.vars[v].mandatory = true;
        if (msgs_) {
          p_.vars[v].mandatory_message = StrCat("clusterserviceversion ", x.entry.name,
                                                " exists and is not referenced by a subscription");
        }
      }
      work_.push_back(v);
    }
    std::vector<const SubscriptionInput*> subs;
    for (const auto& s : in_.subscriptions) subs.push_back(&s);
    std::sort(subs.begin(), subs.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (const SubscriptionInput* s : subs) {
      if (auto st = AddSubscription(*s); !st.ok()) return st;
    }
    while (!work_.empty()) {
      int v = work_.back();
      work_.pop_back();
      if (auto st = Expand(v); !st.ok()) return st;
    }
    AddInvariants();
    auto on = Solve(p_);
    if (!on.ok()) return on.status();
    ResolveResult r;
    r.variables = p_.vars.size();
    for (size_t v = 0; v < info_.size(); ++v) {
      const VarInfo& vi = info_[v];
      if (!(*on)[v] || vi.e == nullptr || vi.catalog < 0) continue;
      const CatalogRef& c = in_.catalogs[vi.catalog];
      ResolvedOperator op;
      op.csv = vi.e->name;
      op.package = vi.e->package;
      op.channel = vi.e->channel;
      op.catalog = c.name;
      op.catalog_ns = c.ns;
      op.version = vi.e->version_text;
      op.replaces = vi.replaces.empty() ? vi.e->replaces : vi.replaces;
      op.starting_csv = vi.starting_csv;
      op.subscription = vi.subscription;
      op.why = vi.why;
      r.operators.push_back(std::move(op));
    }
    std::sort(r.operators.begin(), r.operators.end(),
              [](const ResolvedOperator& a, const ResolvedOperator& b) { return a.csv < b.csv; });
    return r;
  }

 private:
  int NewVar(std::string id, VarInfo vi) {
    SolverVar sv;
    sv.id = std::move(id);
    p_.vars.push_back(std::move(sv));
    info_.push_back(std::move(vi));
    return static_cast<int>(p_.vars.size() - 1);
  }

  // The variable of catalog entry (c, e), created on first use.
  int CatalogVar(int c, int e, bool* created) {
    auto [it, fresh] = catalog_var_.try_emplace({c, e}, -1);
    *created = fresh;
    if (!fresh) return it->second;
    const CatalogRef& cr = in_.catalogs[c];
    const Entry& en = cr.index->entries()[e];
    int v = NewVar(StrCat(cr.name, "/", cr.ns, "/", en.channel, "/", en.name), {c, e, &en});
    it->second = v;
    if (en.legacy_deprecated) {
      p_.vars[v].prohibited = true;
      if (msgs_) p_.vars[v].prohibited_message = StrCat("bundle ", p_.vars[v].id, " is deprecated");
    }
    work_.push_back(v);
    return v;
  }

  const CatalogRef* FindCatalog(std::string_view name, std::string_view ns, int* index) const {
    for (size_t i = 0; i < in_.catalogs.size(); ++i) {
      if (in_.catalogs[i].name == name && in_.catalogs[i].ns == ns) {
        *index = static_cast<int>(i);
        return &in_.catalogs[i];
      }
    }
    return nullptr;
  }

  // The variable of the subscription's installed CSV in @existing, -1 if none.
  absl::StatusOr<int> InstalledVar(const SubscriptionInput& s) {
    int current = -1;
    if (s.installed_csv.empty()) return current;
    std::vector<std::string> matches;
    for (size_t i = 0; i < in_.existing.size(); ++i) {
      if (in_.existing[i].entry.name == s.installed_csv) {
        current = existing_var_[i];
        matches.push_back(p_.vars[current].id);
      }
    }
    if (matches.size() > 1) {
      return absl::FailedPreconditionError(
          StrCat("multiple name matches for status.installedCSV of subscription ", in_.ns, "/", s.name, ": ",
                 AndList(matches)));
    }
    return current;
  }

  absl::Status AddSubscription(const SubscriptionInput& s) {
    int sv = NewVar(StrCat("subscription:", s.name), {});
    p_.vars[sv].mandatory = true;
    if (msgs_) p_.vars[sv].mandatory_message = StrCat("subscription ", s.name, " exists");
    auto prohibit = [&](auto make_msg) {
      p_.vars[sv].prohibited = true;
      if (msgs_) p_.vars[sv].prohibited_message = make_msg();
      return absl::OkStatus();
    };
    auto installed = InstalledVar(s);
    if (!installed.ok()) return installed.status();
    const int current = *installed;
    const Entry* cur = current >= 0 ? info_[current].e : nullptr;
    int ci = -1;
    const CatalogRef* cat = FindCatalog(s.source, s.source_ns, &ci);
    if (cat == nullptr || cat->index->entries().empty()) {
      return prohibit([&] {
        return StrCat("no operators found from catalog ", s.source, " in namespace ", s.source_ns,
                      " referenced by subscription ", s.name);
      });
    }
    const CatalogPackage* pkg = cat->index->FindPackage(s.package);
    if (pkg == nullptr) {
      return prohibit([&] {
        return StrCat("no operators found in package ", s.package,
                      " in the catalog referenced by subscription ", s.name);
      });
    }
    std::vector<const CatalogChannel*> channels;
    for (const auto& ch : pkg->channels)
      if (s.channel.empty() || ch.name == s.channel) channels.push_back(&ch);
    if (channels.empty()) {
      return prohibit([&] {
        return StrCat("no operators found in channel ", s.channel, " of package ", s.package,
                      " in the catalog referenced by subscription ", s.name);
      });
    }
    std::stable_sort(channels.begin(), channels.end(), [&](auto* a, auto* b) {
      bool ad = a->name == pkg->default_channel, bd = b->name == pkg->default_channel;
      return ad != bd ? ad : a->name < b->name;
    });
    std::vector<int> cands;
    const bool by_start = cur == nullptr && !s.starting_csv.empty();
    const auto& entries = cat->index->entries();
    for (const CatalogChannel* ch : channels) {
      if (by_start) {
        // Filtered down to that one entry first: even a skipped one is chosen.
        for (int e : ch->all) {
          if (entries[e].name != s.starting_csv) continue;
          bool created;
          int v = CatalogVar(ci, e, &created);
          if (created) {
            info_[v].subscription = s.name;
            info_[v].starting_csv = s.starting_csv;
            info_[v].why = StrCat("startingCSV ", s.starting_csv, " of subscription ", s.name);
          }
          cands.push_back(v);
        }
        continue;
      }
      if (!ch->order_error.empty()) return absl::FailedPreconditionError(ch->order_error);
      for (int e : ch->order) {
        const Entry& en = entries[e];
        std::optional<std::string> edge;
        if (cur != nullptr) {
          edge = en.Upgrades(cur->name, cur->version ? &*cur->version : nullptr);
          if (!edge) continue;
        }
        bool created;
        int v = CatalogVar(ci, e, &created);
        if (created || info_[v].subscription.empty()) {
          info_[v].subscription = s.name;
          if (cur != nullptr) {
            info_[v].replaces = cur->name;
            info_[v].why = StrCat("upgrade: ", *edge);
          } else if (en.order == 0) {
            info_[v].why = StrCat("fresh install: head of ", en.default_channel ? "default " : "", "channel ",
                                  en.channel);
          } else {
            info_[v].why = StrCat("fresh install: ", en.channel, " entry ", en.order,
                                  " (the entries above it could not be installed)");
          }
        }
        if (current >= 0) {
          p_.vars[v].conflicts.push_back(current);
          if (msgs_) p_.vars[v].conflict_message = StrCat(p_.vars[v].id, " replaces ", p_.vars[current].id);
        }
        cands.push_back(v);
      }
    }
    if (by_start && cands.empty()) {
      return prohibit([&] {
        return StrCat("no operators found with name ", s.starting_csv, " in channel ", s.channel,
                      " of package ", s.package, " in the catalog referenced by subscription ", s.name);
      });
    }
    if (current >= 0) cands.push_back(current);
    SolverDependency d;
    d.candidates = cands;
    if (msgs_ && cands.empty()) {
      d.message = StrCat("no operators found matching the criteria of subscription ", s.name);
    } else if (msgs_) {
      std::vector<std::string> ids;
      for (int c : cands) ids.push_back(p_.vars[c].id);
      d.message = StrCat("subscription ", s.name, " requires ", ids.size() == 1 ? "" : "at least one of ",
                         OrList(ids));
    }
    p_.vars[sv].dependencies.push_back(std::move(d));
    return absl::OkStatus();
  }

  const std::vector<int>* Narrow(const CatalogIndex& idx, const Predicate& p) const {
    switch (p.kind) {
      case Predicate::Kind::kGvk:
        return idx.Providers(p.gvk);
      case Predicate::Kind::kPackage:
        return idx.OfPackage(p.package);
      case Predicate::Kind::kAll:
        for (const auto& c : p.children) {
          if (c.kind == Predicate::Kind::kGvk || c.kind == Predicate::Kind::kPackage) return Narrow(idx, c);
        }
        return &idx.Ranked();
      default:
        return &idx.Ranked();
    }
  }

  absl::Status Expand(int v) {
    VarInfo& vi = info_[v];
    if (vi.expanded || vi.e == nullptr) return absl::OkStatus();
    vi.expanded = true;
    const Entry& b = *vi.e;
    if (!b.dependency_error.empty()) {
      return absl::InvalidArgumentError(StrCat("bundle ", b.name, ": ", b.dependency_error));
    }
    for (const Predicate& pred : b.dependencies) {
      SolverDependency d;
      for (size_t i = 0; i < in_.existing.size(); ++i) {
        if (pred.Matches(in_.existing[i].entry.Facts())) d.candidates.push_back(existing_var_[i]);
      }
      std::sort(d.candidates.begin(), d.candidates.end());  // existing vars were created in name order
      // The dependent's own catalog first, then the §8 order.
      std::vector<int> order;
      if (info_[v].catalog >= 0) order.push_back(info_[v].catalog);
      for (int c : cats_)
        if (c != info_[v].catalog) order.push_back(c);
      for (int c : order) {
        const CatalogIndex& idx = *in_.catalogs[c].index;
        const std::vector<int>* list = Narrow(idx, pred);
        if (list == nullptr) continue;
        for (int e : *list) {
          if (!pred.Matches(idx.entries()[e].Facts())) continue;
          bool created;
          int cv = CatalogVar(c, e, &created);
          if (created) info_[cv].why = StrCat("required by ", b.name, ": an operator ", pred.Text());
          d.candidates.push_back(cv);
        }
      }
      if (msgs_) d.message = StrCat("bundle ", b.name, " requires an operator ", pred.Text());
      p_.vars[v].dependencies.push_back(std::move(d));
    }
    return absl::OkStatus();
  }

  void AddInvariants() {
    // Variables by provided API and by package; ids are unique, so sorting
    // the variables by id orders them as the ids.
    std::map<Gvk, std::vector<int>> gvk;
    std::map<std::string_view, std::vector<int>> pkg;
    for (size_t v = 0; v < info_.size(); ++v) {
      const Entry* e = info_[v].e;
      if (e == nullptr) continue;
      for (const Gvk& g : e->provides) gvk[g].push_back(static_cast<int>(v));
      if (!e->package.empty()) pkg[e->package].push_back(static_cast<int>(v));
    }
    auto add = [&](std::vector<int>& vars, auto mandatory, auto msg_tail) {
      if (vars.size() < 2) return;
      std::sort(vars.begin(), vars.end(), [&](int a, int b) { return p_.vars[a].id < p_.vars[b].id; });
      SolverAtMost am;
      am.vars = vars;
      if (msgs_) {
        std::vector<std::string> ids;
        for (int v : vars) ids.push_back(p_.vars[v].id);
        am.mandatory_message = mandatory();
        am.message = StrCat(AndList(ids), msg_tail());
      }
      p_.at_most.push_back(std::move(am));
    };
    // Plain references, not structured bindings, in the lambdas: clang 14
    // (the fuzz build) cannot capture a binding.
    for (auto& entry : gvk) {
      const auto& g = entry.first;
      add(
          entry.second, [&] { return StrCat("there can be only one provider of ", g.Text()); },
          [&] { return StrCat(" provide ", g.Text()); });
    }
    for (auto& entry : pkg) {
      const auto& p = entry.first;
      add(
          entry.second, [&] { return StrCat("there can be only one operator from package ", p); },
          [&] { return StrCat(" originate from package ", p); });
    }
  }

  const ResolveInput& in_;
  const bool msgs_;
  std::vector<int> cats_;
  SolverProblem p_;
  std::vector<VarInfo> info_;
  std::map<std::pair<int, int>, int> catalog_var_;
  std::vector<int> existing_var_;
  std::vector<int> work_;
};

}  // namespace

absl::StatusOr<ResolveResult> Resolve(const ResolveInput& in) {
  auto r = Builder(in, false).Run();
  if (r.status().code() == absl::StatusCode::kFailedPrecondition) return Builder(in, true).Run();
  return r;
}

}  // namespace recon::olm
