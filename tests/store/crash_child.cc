// Child of crash_test: appends to a RocksDbStore (sync durability) until it
// is killed, writing the last seq of every acknowledged batch to stdout as
// "<seq>\n". Events are a pure function of their seq (CrashEventForSeq), so
// the parent can recompute every record it should find after the kill.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "base/strings.h"
#include "store/rocksdb_store.h"
#include "tests/store/test_util.h"

namespace {

bool WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s STORE_DIR\n", argv[0]);
    return 2;
  }
  using recon::store::testing::CrashEventForSeq;
  recon::store::RocksDbOptions options;
  options.durability = recon::store::Durability::kSync;
  auto st = recon::store::RocksDbStore::Open(argv[1], options);
  if (!st.ok()) {
    std::fprintf(stderr, "crash_child: %s\n", std::string(st.status().message()).c_str());
    return 1;
  }
  uint64_t next = (*st)->LastSeq() + 1;
  for (;;) {
    // Batch sizes 1..16, also a function of seq.
    const uint64_t n = 1 + (next * 31) % 16;
    std::vector<recon::records::EventRecord> batch;
    batch.reserve(n);
    for (uint64_t i = 0; i < n; ++i) batch.push_back(CrashEventForSeq(next + i));
    auto first = (*st)->Append(batch);
    if (!first.ok() || *first != next) {
      std::fprintf(stderr, "crash_child: append at seq %llu: %s\n", static_cast<unsigned long long>(next),
                   first.ok() ? "wrong first seq" : std::string(first.status().message()).c_str());
      return 1;
    }
    next += n;
    // Acknowledged: Append returned after the WAL sync.
    if (!WriteAll(STDOUT_FILENO, recon::StrCat(next - 1, "\n"))) return 1;
  }
}
