// The commands that name a store, on a real etcd cluster, as a user runs
// them: `--store etcd://HOST:PORT,…/PREFIX`. What they print must be what
// they print for the same log in RocksDB; bad stores and credentials are
// clear errors (exit 1) naming what was wrong and never the password.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/strings.h"
#include "tests/adapters/etcd/shared_cluster.h"
#include "tests/cli/run_recon.h"

namespace recon::etcd {
namespace {

using cli::testing::RunRecon;
using cli::testing::RunResult;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kScenario = std::string(RECON_SOURCE_DIR) + "/tests/scenarios/olm/csv_lifecycle";

std::string Store(const std::string& prefix) {
  auto cluster = testing::SharedCluster();
  return cluster.ok() ? StrCat("etcd://", (*cluster)->hosts(), "/", prefix) : "";
}

TEST(EtcdCli, ImportExportReplayAndSnapshotAsOnRocksDb) {
  store::testing::TempDir tmp;
  const std::string etcd = Store("cli/import");
  ASSERT_FALSE(etcd.empty());
  const std::string rocks = tmp.Sub("rocks");
  for (const std::string& s : {etcd, rocks}) {
    RunResult r = RunRecon(tmp, StrCat("log import ", kScenario, ".jsonl --store ", s));
    ASSERT_EQ(r.code, 0) << s << ": " << r.err;
  }
  RunResult from_etcd = RunRecon(tmp, StrCat("log export --store ", etcd));
  RunResult from_rocks = RunRecon(tmp, StrCat("log export --store ", rocks));
  ASSERT_EQ(from_etcd.code, 0) << from_etcd.err;
  ASSERT_EQ(from_rocks.code, 0) << from_rocks.err;
  EXPECT_FALSE(from_etcd.out.empty());
  EXPECT_TRUE(from_etcd.out == from_rocks.out) << "log export differs between etcd and RocksDB";

  // The scenario's actions, recomputed from the log in etcd.
  const std::string args = "--domains olm --set olm.csvLifecycle=true";
  RunResult replay = RunRecon(tmp, StrCat("replay --store ", etcd, " ", args));
  ASSERT_EQ(replay.code, 0) << replay.err;
  EXPECT_TRUE(replay.out == cli::testing::ReadFile(kScenario + ".expected"))
      << "replay differs from the scenario's";

  // A snapshot written to etcd, then explain reads the store.
  RunResult snap = RunRecon(tmp, StrCat("snapshot --store ", etcd, " ", args));
  ASSERT_EQ(snap.code, 0) << snap.err;
  RunResult explain = RunRecon(tmp, StrCat("explain --store ", etcd, " ", args));
  EXPECT_EQ(explain.code, 0) << explain.err;
  EXPECT_THAT(explain.out, HasSubstr("ClusterServiceVersion"));
}

// A log copied RocksDB -> etcd -> RocksDB exports the same bytes; a copy
// into a store holding events needs --append and the same history.
TEST(EtcdCli, LogCopyBetweenStoresKeepsEverySeq) {
  store::testing::TempDir tmp;
  const std::string a = tmp.Sub("a"), b = tmp.Sub("b"), etcd = Store("cli/copy");
  ASSERT_EQ(RunRecon(tmp, StrCat("log import ", kScenario, ".jsonl --store ", a)).code, 0);
  ASSERT_EQ(RunRecon(tmp, StrCat("snapshot --store ", a, " --domains olm --set olm.csvLifecycle=true")).code,
            0);
  RunResult there = RunRecon(tmp, StrCat("log copy --from ", a, " --to ", etcd));
  ASSERT_EQ(there.code, 0) << there.err;
  EXPECT_THAT(
      there.out,
      HasSubstr("copied 381 events (seq 1..381, 1 with content), 0 actions, the snapshot at seq 381"));
  RunResult back = RunRecon(tmp, StrCat("log copy --from ", etcd, " --to ", b));
  ASSERT_EQ(back.code, 0) << back.err;
  const std::string original = RunRecon(tmp, StrCat("log export --store ", a)).out;
  EXPECT_FALSE(original.empty());
  EXPECT_TRUE(RunRecon(tmp, StrCat("log export --store ", etcd)).out == original);
  EXPECT_TRUE(RunRecon(tmp, StrCat("log export --store ", b)).out == original);
  // The copy replays to the scenario's actions.
  RunResult replay =
      RunRecon(tmp, StrCat("replay --store ", b, " --domains olm --set olm.csvLifecycle=true"));
  EXPECT_EQ(replay.code, 0) << replay.err;
  EXPECT_TRUE(replay.out == cli::testing::ReadFile(kScenario + ".expected"));

  RunResult again = RunRecon(tmp, StrCat("log copy --from ", a, " --to ", b));
  EXPECT_EQ(again.code, 1);
  EXPECT_THAT(again.err, HasSubstr("holds seq 1..381: give --append"));
  RunResult same = RunRecon(tmp, StrCat("log copy --from ", a, " --to ", b, " --append"));
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_THAT(same.out, HasSubstr("copied 0 events"));
  const std::string other = tmp.Sub("other");
  ASSERT_EQ(RunRecon(tmp, StrCat("log import ", RECON_SOURCE_DIR,
                                 "/examples/samples-removed-hang.jsonl --store ", other))
                .code,
            0);
  RunResult mixed = RunRecon(tmp, StrCat("log copy --from ", a, " --to ", other, " --append"));
  EXPECT_EQ(mixed.code, 1);
  EXPECT_THAT(mixed.err, HasSubstr("is not the source's"));
}

// `recon bench store --store etcd://…` runs its figures on the cluster (a
// smoke test: sizes tiny, no figure judged; the 13 MB blob goes in 15
// transactions: 14 parts of 1 MiB and the manifest).
TEST(EtcdCli, BenchStoreOnEtcd) {
  store::testing::TempDir tmp;
  RunResult r = RunRecon(tmp, StrCat("bench store --json --events 512 --rounds 1 --dir ", tmp.Sub("rocks"),
                                     " --store ", Store("cli/bench")));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"append_vs_raw_ratio\":"));
  EXPECT_THAT(r.out, HasSubstr("\"blob_txns\":15}"));
}

// The agent keeps its log in etcd (its redaction key beside it), and the
// log replays to the actions it took.
TEST(EtcdCli, AnAgentOnEtcdAndItsReplay) {
  store::testing::TempDir tmp;
  const std::string etcd = Store("cli/agent");
  ASSERT_FALSE(etcd.empty());
  RunResult agent = RunRecon(tmp, StrCat("agent --cluster sim --scenario ", RECON_SOURCE_DIR,
                                         "/examples/scenarios/samples-removed.json --store ", etcd,
                                         " --until-converged --domains samples"));
  ASSERT_EQ(agent.code, 0) << agent.err;
  EXPECT_THAT(agent.out, HasSubstr("converged"));
  RunResult check = RunRecon(tmp, StrCat("replay --check --store ", etcd));
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  EXPECT_THAT(check.out, HasSubstr("recomputed actions match the"));
}

// log stat reads the log in etcd as in RocksDB (the same counts), with the
// database's size against the quota; past 70 % of it, a warning.
TEST(EtcdCli, LogStatOnEtcdCountsAsOnRocksDbAndWarnsNearTheQuota) {
  store::testing::TempDir tmp;
  const std::string etcd = Store("cli/stat"), rocks = tmp.Sub("rocks");
  ASSERT_FALSE(etcd.empty());
  for (const std::string& s : {etcd, rocks})
    ASSERT_EQ(RunRecon(tmp, StrCat("log import ", kScenario, ".jsonl --store ", s)).code, 0) << s;
  RunResult on_etcd = RunRecon(tmp, StrCat("log stat --store ", etcd));
  RunResult on_rocks = RunRecon(tmp, StrCat("log stat --store ", rocks));
  ASSERT_EQ(on_etcd.code, 0) << on_etcd.err;
  ASSERT_EQ(on_rocks.code, 0) << on_rocks.err;
  EXPECT_THAT(on_etcd.out, HasSubstr("events      381 (seq 1..381)"));
  EXPECT_THAT(on_etcd.out, HasSubstr("in etcd's database (every prefix)"));
  EXPECT_THAT(on_etcd.out, HasSubstr("quota       2147483648 bytes: "));
  EXPECT_THAT(on_etcd.err, Not(HasSubstr("warning")));
  // Everything after the bytes lines (types, kinds) is the same.
  auto tail = [](const std::string& s) { return s.substr(s.find("by type")); };
  EXPECT_EQ(tail(on_etcd.out), tail(on_rocks.out));
  RunResult json = RunRecon(tmp, StrCat("log stat --json --store ", etcd, " --etcd-quota-bytes 1000"));
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"quota_bytes\":1000,"));
  RunResult near = RunRecon(tmp, StrCat("log stat --store ", etcd, " --etcd-quota-bytes 1000"));
  EXPECT_EQ(near.code, 0);
  EXPECT_THAT(near.err, HasSubstr("warning: store: the database holds "));
  EXPECT_THAT(near.err, HasSubstr("etcd refuses every write (NOSPACE)"));
}

// The simulated cluster's run kept in etcd, replayed from there.
TEST(EtcdCli, SimKeepsItsLogInEtcd) {
  store::testing::TempDir tmp;
  const std::string etcd = Store("cli/sim");
  ASSERT_FALSE(etcd.empty());
  RunResult sim = RunRecon(tmp, StrCat("sim --scenario ", RECON_SOURCE_DIR,
                                       "/examples/scenarios/samples-removed.json --store ", etcd));
  ASSERT_EQ(sim.code, 0) << sim.err;
  EXPECT_THAT(sim.out, HasSubstr(StrCat("log: ", etcd, " (recon replay --check --store ", etcd, ")")));
  RunResult check = RunRecon(tmp, StrCat("replay --check --store ", etcd));
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  EXPECT_THAT(check.out, HasSubstr("recomputed actions match the"));
}

// Over TLS with the cluster's CA the store works; with another CA's it is a
// clear error naming the endpoint, and nothing is written.
TEST(EtcdCli, TlsWithTheClustersCaAndAClearErrorWithAnotherOne) {
  store::testing::TempDir tmp;
  auto cluster = testing::EtcdCluster::Start(1, /*tls=*/true);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string url = StrCat("etcd://", (*cluster)->hosts(), "/tls");
  RunResult imported =
      RunRecon(tmp, StrCat("log import ", kScenario, ".jsonl --store ", url, " --etcd-cacert ", (*cluster)->ca_file()));
  ASSERT_EQ(imported.code, 0) << imported.err;
  RunResult stat = RunRecon(tmp, StrCat("log stat --store ", url, " --etcd-cacert ", (*cluster)->ca_file()));
  EXPECT_EQ(stat.code, 0) << stat.err;
  EXPECT_THAT(stat.out, HasSubstr("events      381 (seq 1..381)"));
  auto other = testing::EtcdCluster::MakeCa(tmp.path(), "other-ca");
  ASSERT_TRUE(other.ok()) << other.status();
  RunResult wrong = RunRecon(tmp, StrCat("log import ", kScenario, ".jsonl --store ", url, "-again --etcd-cacert ", *other));
  EXPECT_EQ(wrong.code, 1);
  EXPECT_THAT(wrong.err, HasSubstr(StrCat("etcd: no endpoint's certificate was accepted (https://",
                                          (*cluster)->hosts(), ": SSL certificate problem")));
  EXPECT_THAT(wrong.err, HasSubstr(StrCat(*other, " is not the CA that signed them")));
  // Nothing went under the prefix the refused import named.
  RunResult none = RunRecon(tmp, StrCat("log export --store ", url, "-again --etcd-cacert ", (*cluster)->ca_file()));
  EXPECT_EQ(none.code, 1);
  EXPECT_THAT(none.err, HasSubstr("no recon store under etcd prefix tls-again/"));
}

// The soak with the agent's log in etcd: the agent SIGKILLed and restarted
// on it (a new term each time), the fault-free and faulty runs' logs each
// under their own prefix, checked against the cluster and replayed from there.
TEST(EtcdCli, SoakWithTheLogInEtcd) {
  store::testing::TempDir tmp;
  const std::string etcd = Store("cli/soak");
  ASSERT_FALSE(etcd.empty());
  RunResult soak = RunRecon(tmp, StrCat("soak --quiet --dir ", tmp.Sub("soak"), " --store ", etcd,
                                        " --instances 4 --edits 20 --rate 20 --kills 1 --outages 0"));
  EXPECT_EQ(soak.code, 0) << soak.out << soak.err;
  EXPECT_THAT(soak.out, HasSubstr("PASSED"));
  EXPECT_THAT(soak.out, HasSubstr("log vs cluster mismatches 0"));
  for (const char* run : {"baseline", "faults"}) {
    EXPECT_FALSE(std::filesystem::exists(tmp.Sub(StrCat("soak/", run, "/store")))) << run;
    RunResult stat = RunRecon(tmp, StrCat("log stat --json --store ", etcd, "/", run));
    EXPECT_EQ(stat.code, 0) << run << ": " << stat.err;
    EXPECT_THAT(stat.out, HasSubstr("\"events\":")) << run;
  }
  RunResult bad = RunRecon(tmp, StrCat("soak --dir ", tmp.Sub("soak2"), " --store ", tmp.Sub("rocks")));
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--store: give etcd://HOST:PORT[,...]/PREFIX"));
}

TEST(EtcdCli, BadStoresAndCredentialsAreClearErrors) {
  store::testing::TempDir tmp;
  struct Case {
    std::string args, want;
  };
  const std::vector<Case> cases = {
      {StrCat("log export --store ", Store("cli/nothing-here")),
       "no recon store under etcd prefix cli/nothing-here/"},
      {"log export --store etcd://127.0.0.1:1/p --etcd-user recon", "--etcd-user recon: no password"},
      {"log export --store etcd://127.0.0.1:1/p", "etcd: no endpoint answered (http://127.0.0.1:1: "},
      {"log export --store etcd://127.0.0.1/p", "endpoint \"127.0.0.1\" is not HOST:PORT"},
      {"log export --store etcd://127.0.0.1:1/p --etcd-cert c.pem",
       "--etcd-cert and --etcd-key: give both or neither"},
      {"log stat --store etcd://127.0.0.1:1/p", "etcd: no endpoint answered (http://127.0.0.1:1: "},
      {StrCat("log stat --store ", Store("cli/import"), " --etcd-quota-bytes 2G"),
       "--etcd-quota-bytes: expected a positive number of bytes, got \"2G\""},
  };
  for (const Case& c : cases) {
    RunResult r = RunRecon(tmp, c.args);
    EXPECT_EQ(r.code, 1) << c.args << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.want)) << c.args;
  }
  // The password travels to etcd only: a wrong one is named as such, never shown.
  std::ofstream(tmp.Sub("password")) << "planted-s3cret\n";
  RunResult auth = RunRecon(tmp, StrCat("log export --store ", Store("cli/import"),
                                        " --etcd-user recon --etcd-password-file ", tmp.Sub("password")));
  EXPECT_EQ(auth.code, 1);
  EXPECT_THAT(auth.err, HasSubstr("authenticating as etcd user recon"));
  EXPECT_THAT(auth.err, Not(HasSubstr("planted-s3cret")));
  // An import into a prefix holding something else writes nothing.
  auto kv = testing::SharedKv();
  ASSERT_TRUE(kv.ok()) << kv.status();
  ASSERT_TRUE((*kv)->Txn({}, {store::TxnOp::Put("cli/foreign/registry/pods/x", "{}")}).ok());
  RunResult foreign =
      RunRecon(tmp, StrCat("log import ", kScenario, ".jsonl --store ", Store("cli/foreign")));
  EXPECT_EQ(foreign.code, 1) << foreign.err;
  EXPECT_THAT(foreign.err, HasSubstr("holds keys that are not a recon store (cli/foreign/registry/pods/x)"));
  auto left = (*kv)->Range({"cli/foreign/", store::KeyRange::PrefixEnd("cli/foreign/")});
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(left->kvs.size(), 1u);
}

}  // namespace
}  // namespace recon::etcd
