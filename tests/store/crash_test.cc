// kill -9 while appending: a child process (crash_child.cc) appends to a
// RocksDbStore in sync mode and reports each acknowledged seq on a pipe; we
// SIGKILL it at random moments, reopen the store, and check that every
// acknowledged seq is there, byte-identical, with dense seqs.
//
// RECON_CRASH_TRIALS=N runs N kills instead of the default 20;
// RECON_CRASH_SEED=S replays the random kill moments of an earlier run.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "records/codec.h"
#include "store/rocksdb_store.h"
#include "tests/store/test_util.h"

#ifndef RECON_STORE_CRASH_CHILD
#error "RECON_STORE_CRASH_CHILD must name the crash_child binary"
#endif

namespace recon::store {
namespace {

using testing::CrashEventForSeq;
using testing::TempDir;

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// One running child: its pid and the read end of its stdout.
struct Child {
  pid_t pid = -1;
  int out = -1;
  std::string pending;  // an incomplete line read so far
  uint64_t max_acked = 0;
  uint64_t acks = 0;

  // Parses whatever `data` holds into acknowledged seqs.
  void Consume(const char* data, size_t n) {
    pending.append(data, n);
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      uint64_t seq = std::strtoull(pending.substr(0, nl).c_str(), nullptr, 10);
      EXPECT_GT(seq, max_acked) << "acks must increase";
      max_acked = seq;
      ++acks;
      pending.erase(0, nl + 1);
    }
  }
  // Blocks until one more ack arrives or the pipe closes; false on close.
  bool ReadSome() {
    char buf[4096];
    for (;;) {
      ssize_t n = read(out, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      Consume(buf, static_cast<size_t>(n));
      return true;
    }
  }
};

Child Spawn(const std::string& dir) {
  int fds[2];
  Child c;
  if (pipe(fds) != 0) {
    ADD_FAILURE() << "pipe failed";
    return c;
  }
  pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    const char* path = RECON_STORE_CRASH_CHILD;
    execl(path, path, dir.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    ADD_FAILURE() << "fork failed";
    return c;
  }
  c.pid = pid;
  c.out = fds[0];
  return c;
}

// Every record from 1 to LastSeq() is present, in order, and exactly the
// bytes the child wrote; returns LastSeq().
uint64_t VerifyStore(const std::string& dir, uint64_t max_acked) {
  auto st = RocksDbStore::Open(dir, {.create_if_missing = false});
  // A child killed before it created the store acknowledged nothing; any
  // other failure to open is a real loss.
  if (!st.ok() && absl::IsNotFound(st.status()) && max_acked == 0) return 0;
  EXPECT_TRUE(st.ok()) << st.status();
  if (!st.ok()) return 0;
  const uint64_t last = (*st)->LastSeq();
  EXPECT_GE(last, max_acked) << "an acknowledged append was lost";
  EXPECT_EQ((*st)->FirstSeq(), 1u);
  auto it = (*st)->ReadEvents(1, kEndOfLog);
  EXPECT_TRUE(it.ok()) << it.status();
  if (!it.ok()) return 0;
  uint64_t expected = 1;
  for (; (*it)->Valid(); (*it)->Next(), ++expected) {
    EXPECT_EQ((*it)->seq(), expected);
    if ((*it)->seq() != expected) break;
    // Byte-identical: the child's event for this seq, encoded afresh here.
    const std::string want = records::EncodeEventPayload(expected, CrashEventForSeq(expected));
    if ((*it)->payload() != want) {
      ADD_FAILURE() << "seq " << expected << " differs from what the child appended";
      break;
    }
  }
  EXPECT_TRUE((*it)->status().ok()) << (*it)->status();
  EXPECT_EQ(expected - 1, last) << "seqs are not dense up to the last seq";
  return last;
}

TEST(CrashTest, AcknowledgedAppendsSurviveKill9) {
  const uint64_t trials = std::max<uint64_t>(1, EnvOr("RECON_CRASH_TRIALS", 20));
  const uint64_t seed = EnvOr("RECON_CRASH_SEED", std::random_device{}());
  std::mt19937_64 rng(seed);
  SCOPED_TRACE(::testing::Message() << "RECON_CRASH_SEED=" << seed);

  TempDir tmp;
  const std::string dir = tmp.Sub("db");
  uint64_t max_acked = 0, total_acks = 0, mid_append_kills = 0;
  for (uint64_t trial = 0; trial < trials; ++trial) {
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    Child child = Spawn(dir);
    ASSERT_GT(child.pid, 0);
    // Mostly kill while appends are flowing; sometimes during start-up.
    const bool early = rng() % 5 == 0;
    if (!early) {
      while (child.acks == 0 && child.ReadSome()) {
      }
      ASSERT_GT(child.acks, 0u) << "the child exited before appending";
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % (early ? 30'000 : 60'000)));
    ASSERT_EQ(kill(child.pid, SIGKILL), 0);
    int wstatus = 0;
    ASSERT_EQ(waitpid(child.pid, &wstatus, 0), child.pid);
    // Acks written before the kill are still in the pipe.
    while (child.ReadSome()) {
    }
    close(child.out);
    EXPECT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL)
        << "the child ended on its own (status " << wstatus << ")";
    if (child.acks > 0) ++mid_append_kills;
    total_acks += child.acks;
    max_acked = std::max(max_acked, child.max_acked);
    const uint64_t last = VerifyStore(dir, max_acked);
    if (::testing::Test::HasFailure()) return;
    // What was written but never acknowledged may be kept; it is then part
    // of the log that later acks build on.
    max_acked = std::max(max_acked, last);
  }
  RecordProperty("acks", std::to_string(total_acks));
  EXPECT_GT(mid_append_kills, 0u);
  EXPECT_GT(max_acked, 0u);
}

}  // namespace
}  // namespace recon::store
