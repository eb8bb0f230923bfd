// The parts of records longer than one etcd request, and writes staged
// past the commit point (FORMAT-etcd.md "Keys", "Commit protocol").
#include <algorithm>
#include <future>
#include <utility>

#include "base/strings.h"
#include "records/codec.h"
#include "store/etcd_keys.h"
#include "store/etcd_store.h"

namespace recon::store {

using etcd_keys::Hex;
using etcd_keys::Hex16;
using etcd_keys::OpBytes;
using etcd_keys::ParseDecimal;
using etcd_keys::VersionIs;

namespace {
constexpr char kManifestMark = '\xfe';  // never a frame's first byte (its version)
constexpr int kReadRetries = 3;         // a record replaced while its parts were read
}  // namespace

absl::Status EtcdStore::WriteStaged(std::vector<TxnOp> ops) {
  std::vector<std::vector<TxnOp>> chunks(1);
  size_t bytes = 0;
  for (TxnOp& op : ops) {
    if (chunks.back().size() + 1 > options_.limits.max_txn_ops || bytes + OpBytes(op) > txn_budget_) {
      chunks.emplace_back();
      bytes = 0;
    }
    bytes += OpBytes(op);
    chunks.back().push_back(std::move(op));
  }
  // Nothing staged is visible before the commit that follows, so the
  // transactions need no order among themselves: they go out together, up
  // to staged_in_flight at a time, and the quorum takes them in one round
  // where it can, instead of one round each.
  const Compare term = TermHolds();
  absl::Status first_error;
  bool fenced = false;
  for (size_t i = 0; i < chunks.size(); i += options_.staged_in_flight) {
    const size_t end = std::min(chunks.size(), i + std::max<size_t>(options_.staged_in_flight, 1));
    std::vector<std::future<absl::StatusOr<TxnResult>>> sent;
    for (size_t k = i + 1; k < end; ++k) {
      sent.push_back(std::async(std::launch::async,
                                [this, &term, &chunk = chunks[k]] { return kv_->Txn({term}, chunk); }));
    }
    std::vector<absl::StatusOr<TxnResult>> results;
    results.push_back(kv_->Txn({term}, chunks[i]));  // one on this thread
    for (auto& f : sent) results.push_back(f.get());
    for (const auto& r : results) {
      if (!r.ok() && first_error.ok()) first_error = r.status();
      if (r.ok() && !r->succeeded) fenced = true;
    }
    if (!first_error.ok()) return first_error;
    if (fenced) return CompareFailed("the term");
  }
  return absl::OkStatus();
}

std::vector<TxnOp> EtcdStore::RecordOps(const std::string& owner, std::string_view value) {
  std::vector<TxnOp> ops;
  if (value.size() <= options_.part_bytes) {
    ops.push_back(TxnOp::Put(Key(owner), std::string(value)));
    return ops;
  }
  std::string generation = StrCat(Hex16(term_), Hex16(++generation_));
  size_t parts = (value.size() + options_.part_bytes - 1) / options_.part_bytes;
  for (size_t i = 0; i < parts; ++i) {
    ops.push_back(TxnOp::Put(Key(StrCat("p/", owner, "/", generation, "/", Hex(i, 8))),
                             std::string(value.substr(i * options_.part_bytes, options_.part_bytes))));
  }
  std::string manifest(1, kManifestMark);
  manifest += records::Frame(Key(owner), StrCat("parts ", generation, " ", parts, " ", value.size()));
  ops.push_back(TxnOp::Put(Key(owner), std::move(manifest)));
  return ops;
}

absl::StatusOr<bool> EtcdStore::WriteRecord(const std::string& owner, std::string_view value,
                                            std::vector<Compare> compares, std::vector<TxnOp> extra) {
  std::vector<TxnOp> ops = RecordOps(owner, value);
  TxnOp commit = std::move(ops.back());
  ops.pop_back();
  const bool parted = !ops.empty();
  std::string parts_dir = Key(StrCat("p/", owner, "/"));
  std::string generation_key;
  if (parted) {
    generation_key = ops.front().key.substr(0, parts_dir.size() + 32);
    if (auto s = WriteStaged(std::move(ops)); !s.ok()) return s;
  }
  compares.push_back(TermHolds());
  std::vector<TxnOp> success = {std::move(commit)};
  // Parts of the values this one replaces (all of them when it has none).
  success.push_back(TxnOp::Delete(parts_dir, parted ? generation_key : KeyRange::PrefixEnd(parts_dir)));
  for (TxnOp& op : extra) success.push_back(std::move(op));
  auto r = kv_->Txn(compares, success);
  if (!r.ok()) return r.status();
  if (r->succeeded) return true;
  auto term = ReadNumber("term");
  if (!term.ok()) return term.status();
  if (term->value_or(0) != term_) return CompareFailed("the term");
  if (parted) {
    // Not written: it existed. Unless a retried request of ours wrote it
    // (its manifest names this generation), the parts staged are unused.
    auto owner_now = kv_->Range({Key(owner), ""});
    if (!owner_now.ok()) return owner_now.status();
    std::string_view mine = std::string_view(generation_key).substr(parts_dir.size());
    if (!owner_now->kvs.empty() && owner_now->kvs[0].value.find(mine) != std::string::npos) return true;
    auto dropped =
        kv_->Txn({TermHolds()}, {TxnOp::Delete(generation_key, KeyRange::PrefixEnd(generation_key))});
    if (!dropped.ok()) return dropped.status();
  }
  return false;
}

absl::StatusOr<std::string> EtcdStore::Resolve(const std::string& owner, std::string value,
                                               std::string_view what) {
  if (value.empty() || value[0] != kManifestMark) return value;
  auto text =
      records::Unframe(Key(owner), std::string_view(value).substr(1), StrCat(what, " (part manifest)"));
  if (!text.ok()) return text.status();
  std::vector<std::string_view> fields;
  for (std::string_view rest = *text;;) {
    size_t space = rest.find(' ');
    fields.push_back(rest.substr(0, space));
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  uint64_t parts = 0, total = 0;
  if (fields.size() != 4 || fields[0] != "parts" || fields[1].size() != 32 ||
      !ParseDecimal(fields[2], &parts) || !ParseDecimal(fields[3], &total)) {
    return absl::DataLossError(StrCat(what, ": malformed part manifest"));
  }
  std::string dir = Key(StrCat("p/", owner, "/", fields[1], "/"));
  auto r = kv_->Range({dir, KeyRange::PrefixEnd(dir)});
  if (!r.ok()) return r.status();
  std::string out;
  out.reserve(total);
  for (uint64_t i = 0; i < parts; ++i) {
    if (i >= r->kvs.size() || r->kvs[i].key != dir + Hex(i, 8)) {
      return absl::DataLossError(StrCat(what, ": part ", i + 1, " of ", parts, " is missing"));
    }
    out += r->kvs[i].value;
  }
  if (out.size() != total) {
    return absl::DataLossError(StrCat(what, ": parts hold ", out.size(), " bytes, expected ", total));
  }
  return out;
}

absl::StatusOr<std::optional<std::string>> EtcdStore::ReadRecord(const std::string& owner,
                                                                 std::string_view what) {
  absl::Status last;
  for (int attempt = 0; attempt < kReadRetries; ++attempt) {
    auto r = kv_->Range({Key(owner), ""});
    if (!r.ok()) return r.status();
    if (r->kvs.empty()) return std::optional<std::string>();
    int64_t revision = r->kvs[0].mod_revision;
    auto value = Resolve(owner, std::move(r->kvs[0].value), what);
    if (value.ok()) return std::optional<std::string>(std::move(*value));
    last = value.status();
    // Replaced while its parts were read (the old parts are gone): again.
    auto again = kv_->Range({Key(owner), ""});
    if (!again.ok()) return again.status();
    if (again->kvs.empty() || again->kvs[0].mod_revision == revision) break;
  }
  return last;
}

}  // namespace recon::store
