// Resolution: the solver's preference and minimality, candidate selection on
// the real derived catalog (resolving step by step walks the same path as the
// catalog part's UpgradePath) and determinism. (Snapshot-at-every-seq
// replays of every scenario: the scenario runner.)
#include "domains/olm/resolve/resolver.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "domains/olm/catalog/graph.h"
#include "domains/olm/catalog/loader.h"
#include "domains/olm/catalog/model.h"
#include "domains/olm/reducer.h"
#include "domains/olm/resolve/catalog_index.h"
#include "domains/olm/resolve/solver.h"
#include "engine/engine.h"
#include "engine/file_source.h"
#include "engine/jsonl_reader.h"
#include "engine/jsonl_writer.h"

namespace recon::olm {
namespace {

const std::string kDerived = std::string(RECON_SOURCE_DIR) + "/datasets/olm/community-derived";

std::vector<std::pair<std::string, std::string>> ReadFiles(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.emplace_back(std::filesystem::relative(e.path(), dir).generic_string(), ss.str());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Solver, PreferredPicksStayEvenIfNotMinimal) {
  // a → (x|y), b → y, a and b mandatory: upstream answers {a, b, x, y}.
  SolverProblem p;
  p.vars.resize(4);
  const char* ids[] = {"a", "b", "x", "y"};
  for (int i = 0; i < 4; ++i) p.vars[i].id = ids[i];
  p.vars[0].mandatory = p.vars[1].mandatory = true;
  p.vars[0].dependencies.push_back({{2, 3}, "a requires x or y"});
  p.vars[1].dependencies.push_back({{3}, "b requires y"});
  auto r = Solve(p);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, (std::vector<bool>{true, true, true, true}));
}

TEST(Solver, BacktracksToTheNextCandidate) {
  // s → (x|y); x → z; z prohibited: y is chosen.
  SolverProblem p;
  p.vars.resize(4);
  p.vars[0].mandatory = true;
  p.vars[0].dependencies.push_back({{1, 2}, "s requires x or y"});
  p.vars[1].dependencies.push_back({{3}, "x requires z"});
  p.vars[3].prohibited = true;
  p.vars[3].prohibited_message = "z is prohibited";
  auto r = Solve(p);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<bool>{true, false, true, false}));
}

TEST(Solver, UnsatNamesTheConstraints) {
  SolverProblem p;
  p.vars.resize(2);
  p.vars[0].mandatory = true;
  p.vars[0].mandatory_message = "subscription s exists";
  p.vars[0].dependencies.push_back({{1}, "subscription s requires b"});
  p.vars[1].dependencies.push_back({{}, "bundle b requires an operator providing an API with group: g"});
  auto r = Solve(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      std::string(r.status().message()),
      "constraints not satisfiable: subscription s exists, subscription s requires b, bundle b requires an "
      "operator providing an API with group: g");
}

TEST(Predicate, CompoundConstraintIsOneBundle) {
  auto p = PredicateFromProperty(
      "olm.constraint",
      R"({"failureMessage":"x","all":{"constraints":[{"package":{"packageName":"foo","versionRange":">=1.0.0"}},{"gvk":{"group":"g","version":"v1","kind":"K"}}]}})");
  ASSERT_TRUE(p.ok() && *p);
  Version v1 = *ParseVersion("1.2.0");
  std::vector<Gvk> provides{{"g", "v1", "K"}}, none;
  std::vector<std::string> labels;
  EXPECT_TRUE((*p)->Matches({"foo", &v1, &provides, &labels}));
  EXPECT_FALSE((*p)->Matches({"foo", &v1, &none, &labels}));
  EXPECT_EQ(
      (*p)->Text(),
      "with package: foo and with version in range: >=1.0.0 and providing an API with group: g, version: v1, "
      "kind: K");
  auto bad = PredicateFromProperty("olm.constraint", R"({"failureMessage":"x","unknown":{}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()), "parse olm.constraint: json: unknown field \"unknown\"");
  auto empty = PredicateFromProperty("olm.constraint", R"({"failureMessage":"x"})");
  EXPECT_EQ(std::string(empty.status().message()),
            "convert olm.constraint to resolver predicate: constraint is empty");
}

// Every dependency-free package of the derived catalog: resolving one step
// at a time from the oldest entry of the default channel follows exactly the
// path the catalog part computes, and resolving twice gives the same answer.
TEST(ResolverRealCatalog, StepwiseResolutionFollowsUpgradePath) {
  if (!std::filesystem::exists(kDerived)) FAIL() << "real catalog data not found at " << kDerived;
  auto files = ReadFiles(kDerived);
  ASSERT_FALSE(files.empty());
  auto idx = CatalogIndex::Load(files);
  ASSERT_TRUE(idx.ok()) << idx.status();
  std::map<std::string, std::string> fmap(files.begin(), files.end());
  engine::MemoryFileSource src(fmap);
  auto cfg = LoadCatalog(src);
  ASSERT_TRUE(cfg.ok());
  ErrorNode errors;
  Model m = BuildModel(*cfg, &errors);
  size_t walked = 0, steps = 0;
  for (const CatalogPackage& p : (*idx)->packages()) {
    const CatalogChannel* ch = p.Find(p.default_channel);
    if (ch == nullptr || ch->order.size() < 2) continue;
    bool deps = false;
    for (int e : ch->all) deps |= !(*idx)->entries()[e].dependencies.empty();
    if (deps) continue;
    const auto& es = (*idx)->entries();
    std::string cur = es[ch->order.back()].name;
    const ModelPackage* mp = m.FindPackage(p.name);
    auto expected = UpgradePath(m, *mp, *m.FindChannel(*mp, ch->name), cur);
    ASSERT_TRUE(expected.ok()) << p.name << ": " << expected.status();
    std::vector<std::string> got;
    for (int guard = 0; guard < 1000; ++guard) {
      ResolveInput in;
      in.ns = "ns";
      in.catalogs.push_back({"c", "global", 0, *idx});
      in.subscriptions.push_back({"sub", p.name, ch->name, "c", "global", "", cur});
      ExistingCsv x;
      for (const Entry& e : es) {
        if (e.name == cur) {
          x.entry.name = e.name;
          x.entry.package = e.package;
          x.entry.version = e.version;
          x.entry.provides = e.provides;
          break;
        }
      }
      x.subscription = "sub";
      in.existing.push_back(x);
      auto r = Resolve(in);
      ASSERT_TRUE(r.ok()) << p.name << " at " << cur << ": " << r.status();
      auto again = Resolve(in);
      ASSERT_TRUE(again.ok());
      ASSERT_EQ(r->operators.size(), again->operators.size());
      // A head whose skipRange covers its own version "resolves" to itself:
      // §9.7 makes that a no-op (the CSV exists and currentCSV is it).
      if (r->operators.empty() || r->operators[0].csv == cur) break;
      ASSERT_EQ(r->operators.size(), 1u) << p.name;
      EXPECT_EQ(r->operators[0].csv, again->operators[0].csv);
      cur = r->operators[0].csv;
      got.push_back(cur);
    }
    std::vector<std::string> want;
    for (const auto& s : *expected) want.push_back(s.to);
    EXPECT_EQ(got, want) << p.name;
    EXPECT_EQ(cur, es[ch->order.front()].name) << p.name;
    ++walked;
    steps += got.size();
  }
  EXPECT_GT(walked, 200u);
  EXPECT_GT(steps, 1000u);
}

}  // namespace
}  // namespace recon::olm
