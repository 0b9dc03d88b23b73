#include "count/exact/component_cache.hpp"

#include <cstring>

#include "assay/core/error.hpp"

namespace assay::count::exact {
namespace {

// Bits to store the values 0..n-1 (at least 1).
std::uint32_t bits_for(std::uint32_t n) {
  std::uint32_t bits = 1;
  while (bits < 32 && (std::uint64_t{1} << bits) < n) ++bits;
  return bits;
}

std::uint64_t mix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

ComponentCache::ComponentCache(std::size_t max_bytes, std::uint32_t n_vars, std::uint32_t n_clauses)
    : max_bytes_(max_bytes),
      bits_per_var_(bits_for(n_vars)),
      bits_per_clause_(bits_for(n_clauses)),
      buckets_(1024, 0) {}

std::uint64_t ComponentCache::pack(std::span<const std::uint32_t> vars,
                                   std::span<const std::uint32_t> clauses,
                                   std::vector<std::uint64_t>& key) const {
  key.clear();
  key.push_back((std::uint64_t{vars.size()} << 32) | clauses.size());
  std::uint64_t word = 0;
  std::uint32_t used = 0;  // bits of `word` filled
  const auto put = [&](std::uint64_t value, std::uint32_t bits) {
    word |= value << used;
    used += bits;
    if (used >= 64) {
      key.push_back(word);
      used -= 64;
      word = used == 0 ? 0 : value >> (bits - used);
    }
  };
  for (const std::uint32_t v : vars) put(v, bits_per_var_);
  for (const std::uint32_t c : clauses) put(c, bits_per_clause_);
  if (used > 0) key.push_back(word);
  std::uint64_t h = 0x243f6a8885a308d3ULL;
  for (const std::uint64_t w : key) h = mix64(h ^ w) + 0x9e3779b97f4a7c15ULL;
  return h;
}

const mpz_class* ComponentCache::find(const std::vector<std::uint64_t>& key, std::uint64_t hash) {
  std::uint32_t i = buckets_[hash & (buckets_.size() - 1)];
  while (i != 0) {
    Entry& e = entries_[i - 1];
    if (e.hash == hash && e.key_words == key.size() &&
        std::memcmp(e.key.get(), key.data(), key.size() * sizeof(std::uint64_t)) == 0) {
      e.hit = true;
      return &e.count;
    }
    i = e.next;
  }
  return nullptr;
}

void ComponentCache::insert(const std::vector<std::uint64_t>& key, std::uint64_t hash,
                            const mpz_class& count) {
  ASSAY_ASSERT(count > 0);
  if (n_entries_ >= buckets_.size()) grow_table();
  std::uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  Entry& e = entries_[index];
  e.hash = hash;
  e.key_words = static_cast<std::uint32_t>(key.size());
  e.key = std::make_unique<std::uint64_t[]>(key.size());
  std::memcpy(e.key.get(), key.data(), key.size() * sizeof(std::uint64_t));
  e.count = count;
  e.alive = true;
  e.hit = false;
  std::uint32_t& bucket = buckets_[hash & (buckets_.size() - 1)];
  e.next = bucket;
  bucket = index + 1;
  log_.push_back({index, e.generation});
  ++n_entries_;
  bytes_ += entry_bytes(e);
  if (bytes_ + buckets_.size() * sizeof(std::uint32_t) + log_.size() * sizeof(LogRecord) >
      max_bytes_) {
    evict();
  }
}

std::size_t ComponentCache::entry_bytes(const Entry& e) const {
  // the entry, its key and its limbs (with the allocator's headers)
  return sizeof(Entry) + e.key_words * sizeof(std::uint64_t) + 16 +
         mpz_size(e.count.get_mpz_t()) * sizeof(mp_limb_t) + 16;
}

void ComponentCache::remove(std::uint32_t index) {
  Entry& e = entries_[index];
  std::uint32_t* link = &buckets_[e.hash & (buckets_.size() - 1)];
  while (*link != index + 1) link = &entries_[*link - 1].next;
  *link = e.next;
  bytes_ -= entry_bytes(e);
  e.key.reset();
  mpz_class().swap(e.count);
  e.alive = false;
  ++e.generation;
  free_.push_back(index);
  --n_entries_;
}

void ComponentCache::evict() {
  const std::size_t target = max_bytes_ / 10 * 8;
  const auto used = [&] {
    return bytes_ + buckets_.size() * sizeof(std::uint32_t) + log_.size() * sizeof(LogRecord);
  };
  while (used() > target && log_head_ < log_.size()) {
    const LogRecord record = log_[log_head_++];
    Entry& e = entries_[record.entry];
    if (!e.alive || e.generation != record.generation) continue;
    if (e.hit) {  // second chance
      e.hit = false;
      log_.push_back(record);
      continue;
    }
    remove(record.entry);
    ++evictions_;
  }
  if (log_head_ > 1024 && log_head_ * 2 > log_.size()) {
    log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(log_head_));
    log_base_ += log_head_;
    log_head_ = 0;
  }
}

void ComponentCache::drop_since(std::uint64_t position) {
  while (log_.size() > log_head_ && log_base_ + log_.size() > position) {
    const LogRecord record = log_.back();
    log_.pop_back();
    const Entry& e = entries_[record.entry];
    if (e.alive && e.generation == record.generation) remove(record.entry);
  }
}

void ComponentCache::grow_table() {
  std::vector<std::uint32_t> buckets(buckets_.size() * 2, 0);
  const std::uint64_t mask = buckets.size() - 1;
  for (std::uint32_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    if (!e.alive) continue;
    e.next = buckets[e.hash & mask];
    buckets[e.hash & mask] = i + 1;
  }
  buckets_.swap(buckets);
}

}  // namespace assay::count::exact
