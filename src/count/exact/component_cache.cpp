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
      slots_(1024) {}

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
  const auto tag = static_cast<std::uint32_t>(hash);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = tag & mask; slots_[i].entry != 0; i = (i + 1) & mask) {
    if (slots_[i].tag != tag) continue;
    Entry& e = entries_[slots_[i].entry - 1];
    if (e.hash == hash && e.key_words == key.size() &&
        std::memcmp(e.key.get(), key.data(), key.size() * sizeof(std::uint64_t)) == 0) {
      e.hit = true;
      return &e.count;
    }
  }
  return nullptr;
}

void ComponentCache::insert(const std::vector<std::uint64_t>& key, std::uint64_t hash,
                            const mpz_class& count) {
  ASSAY_ASSERT(count > 0);
  if (2 * (n_entries_ + 1) > slots_.size()) grow_table();
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
  place(static_cast<std::uint32_t>(hash), index);
  log_.push_back({index, e.generation});
  ++n_entries_;
  bytes_ += entry_bytes(e);
  if (used_bytes() > max_bytes_) evict();
}

void ComponentCache::place(std::uint32_t tag, std::uint32_t index) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = tag & mask;
  while (slots_[i].entry != 0) i = (i + 1) & mask;
  slots_[i] = {tag, index + 1};
}

std::size_t ComponentCache::used_bytes() const {
  return bytes_ + slots_.size() * sizeof(Slot) + log_.size() * sizeof(LogRecord);
}

std::size_t ComponentCache::entry_bytes(const Entry& e) const {
  // the entry, its key and its limbs (with the allocator's headers)
  return sizeof(Entry) + e.key_words * sizeof(std::uint64_t) + 16 +
         mpz_size(e.count.get_mpz_t()) * sizeof(mp_limb_t) + 16;
}

void ComponentCache::remove(std::uint32_t index) {
  Entry& e = entries_[index];
  // Find its slot, empty it and shift later slots of the probe run back (no tombstones).
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = static_cast<std::uint32_t>(e.hash) & mask;
  while (slots_[i].entry != index + 1) i = (i + 1) & mask;
  for (std::size_t j = (i + 1) & mask; slots_[j].entry != 0; j = (j + 1) & mask) {
    const std::size_t home = slots_[j].tag & mask;
    // slot j may move to i unless its home lies cyclically in (i, j]
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    slots_[i] = slots_[j];
    i = j;
  }
  slots_[i] = Slot{};
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
  while (used_bytes() > target && log_head_ < log_.size()) {
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
  slots_.assign(slots_.size() * 2, Slot{});
  for (std::uint32_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].alive) place(static_cast<std::uint32_t>(entries_[i].hash), i);
  }
}

}  // namespace assay::count::exact
