#include "store/memory_kv.h"

#include <set>
#include <utility>

namespace recon::store {

std::string KeyRange::PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  // The smallest key greater than every key with the prefix: the last byte
  // that can grow, grown, and what follows it dropped (etcd's GetPrefixRangeEnd).
  while (!end.empty()) {
    unsigned char last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

TxnOp TxnOp::Put(std::string key, std::string value) {
  TxnOp op;
  op.kind = Kind::kPut;
  op.key = std::move(key);
  op.value = std::move(value);
  return op;
}

TxnOp TxnOp::Delete(std::string key, std::string range_end) {
  TxnOp op;
  op.kind = Kind::kDeleteRange;
  op.key = std::move(key);
  op.range_end = std::move(range_end);
  return op;
}

namespace {

bool InRange(std::string_view k, std::string_view key, std::string_view range_end) {
  if (range_end.empty()) return k == key;
  if (range_end == std::string_view("\0", 1)) return k >= key;
  return k >= key && k < range_end;
}

template <typename T>
bool Ordered(const T& a, const T& b, Compare::Result r) {
  switch (r) {
    case Compare::Result::kEqual:
      return a == b;
    case Compare::Result::kNotEqual:
      return a != b;
    case Compare::Result::kGreater:
      return a > b;
    case Compare::Result::kLess:
      return a < b;
  }
  return false;
}

}  // namespace

std::vector<std::string> MemoryKv::KeysIn(std::string_view key, std::string_view range_end) const {
  std::vector<std::string> out;
  if (range_end.empty()) {
    if (kvs_.contains(key)) out.emplace_back(key);
    return out;
  }
  for (auto it = kvs_.lower_bound(key); it != kvs_.end() && InRange(it->first, key, range_end); ++it)
    out.push_back(it->first);
  return out;
}

absl::StatusOr<RangeResult> MemoryKv::Range(const KeyRange& range, int64_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  RangeResult r;
  r.revision = revision_;
  for (const std::string& k : KeysIn(range.key, range.range_end)) {
    if (limit > 0 && static_cast<int64_t>(r.kvs.size()) == limit) {
      r.more = true;
      break;
    }
    r.kvs.push_back(kvs_.find(k)->second);
  }
  return r;
}

bool MemoryKv::Holds(const Compare& c) const {
  auto it = kvs_.find(c.key);
  const KeyValue* kv = it == kvs_.end() ? nullptr : &it->second;
  switch (c.target) {
    case Compare::Target::kValue:
      return kv != nullptr && Ordered(kv->value, c.value, c.result);
    case Compare::Target::kVersion:
      return Ordered(kv ? kv->version : 0, c.number, c.result);
    case Compare::Target::kCreateRevision:
      return Ordered(kv ? kv->create_revision : 0, c.number, c.result);
    case Compare::Target::kModRevision:
      return Ordered(kv ? kv->mod_revision : 0, c.number, c.result);
  }
  return false;
}

absl::StatusOr<TxnResult> MemoryKv::Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                                        const std::vector<TxnOp>& failure) {
  if (compares.size() > limits_.max_txn_ops || success.size() > limits_.max_txn_ops ||
      failure.size() > limits_.max_txn_ops)
    return absl::InvalidArgumentError("etcdserver: too many operations in txn request");
  size_t bytes = 0;
  for (const Compare& c : compares) bytes += c.key.size() + c.value.size() + 16;
  for (const auto* ops : {&success, &failure})
    for (const TxnOp& op : *ops) bytes += op.key.size() + op.value.size() + op.range_end.size() + 8;
  if (bytes > limits_.max_request_bytes) return absl::InvalidArgumentError("etcdserver: request is too large");
  for (const auto* ops : {&success, &failure}) {
    // etcd refuses a transaction branch that writes one key twice.
    std::set<std::string_view> put;
    for (const TxnOp& op : *ops)
      if (op.kind == TxnOp::Kind::kPut && !put.insert(op.key).second)
        return absl::InvalidArgumentError("etcdserver: duplicate key given in txn request");
    for (const TxnOp& op : *ops)
      if (op.kind == TxnOp::Kind::kDeleteRange)
        for (std::string_view k : put)
          if (InRange(k, op.key, op.range_end))
            return absl::InvalidArgumentError("etcdserver: duplicate key given in txn request");
  }

  std::vector<std::pair<WatchFn, KeyValue>> notify;
  TxnResult result;
  {
    std::lock_guard<std::mutex> lock(mu_);
    result.succeeded = true;
    for (const Compare& c : compares) result.succeeded = result.succeeded && Holds(c);
    const std::vector<TxnOp>& ops = result.succeeded ? success : failure;
    std::map<std::string, KeyValue> changed;
    const int64_t rev = revision_ + 1;
    for (const TxnOp& op : ops) {
      if (op.kind == TxnOp::Kind::kPut) {
        KeyValue& kv = kvs_[op.key];
        if (kv.version == 0) {
          kv.key = op.key;
          kv.create_revision = rev;
        }
        kv.value = op.value;
        kv.mod_revision = rev;
        ++kv.version;
        changed[op.key] = kv;
        continue;
      }
      for (const std::string& k : KeysIn(op.key, op.range_end)) {
        kvs_.erase(k);
        KeyValue gone;
        gone.key = k;
        gone.mod_revision = rev;
        changed[k] = gone;
      }
    }
    if (!changed.empty()) revision_ = rev;
    result.revision = revision_;
    for (const auto& [id, w] : watches_) {
      auto c = changed.find(w.first);
      if (c != changed.end()) notify.emplace_back(w.second, c->second);
    }
  }
  for (auto& [fn, kv] : notify) fn(kv);
  return result;
}

absl::Status MemoryKv::Compact(int64_t revision) {
  std::lock_guard<std::mutex> lock(mu_);
  if (revision > revision_) return absl::OutOfRangeError("etcdserver: mvcc: required revision is a future revision");
  if (revision <= compacted_)
    return absl::OutOfRangeError("etcdserver: mvcc: required revision has been compacted");
  compacted_ = revision;
  return absl::OkStatus();
}

absl::StatusOr<KvStatus> MemoryKv::Status() {
  std::lock_guard<std::mutex> lock(mu_);
  KvStatus s;
  s.revision = revision_;
  for (const auto& [k, kv] : kvs_) s.db_size_in_use += static_cast<int64_t>(k.size() + kv.value.size());
  s.db_size = s.db_size_in_use;
  return s;
}

uint64_t MemoryKv::Watch(std::string key, WatchFn on_change) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = next_watch_++;
  watches_.emplace(id, std::make_pair(std::move(key), std::move(on_change)));
  return id;
}

void MemoryKv::Unwatch(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  watches_.erase(id);
}

}  // namespace recon::store
