// The exact counter's component cache: projected model counts of residual components, keyed by
// the component's open variables and open long clauses (which determine its residual formula).
//
// Keys are packed at fixed widths: one header word (variable count << 32 | clause count), then
// the sorted variable ids and the sorted clause ids, bits_per_var and bits_per_clause bits each.
// Entries live in a chained hash table; an insertion log (append-only, absolute positions)
// supports the two ways entries leave:
// - drop_since(p): every entry logged at or after position p goes (the counter's rule for
//   entries made under a branch whose count turned out 0);
// - eviction when the memory estimate passes max_bytes: oldest first, an entry that was hit
//   since it was logged gets a second chance (it is logged again).
// Requires: counts stored are > 0. Dropping an entry is always safe (it costs only time).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <gmpxx.h>

namespace assay::count::exact {

class ComponentCache {
 public:
  ComponentCache(std::size_t max_bytes, std::uint32_t n_vars, std::uint32_t n_clauses);

  /// Packs a component's key into `key` and returns its hash.
  std::uint64_t pack(std::span<const std::uint32_t> vars, std::span<const std::uint32_t> clauses,
                     std::vector<std::uint64_t>& key) const;
  /// The count stored under `key`, or nullptr.
  const mpz_class* find(const std::vector<std::uint64_t>& key, std::uint64_t hash);
  /// Stores `count` (> 0) under `key` (not already present).
  void insert(const std::vector<std::uint64_t>& key, std::uint64_t hash, const mpz_class& count);

  /// The position the next insertion will be logged at.
  std::uint64_t log_position() const { return log_base_ + log_.size(); }
  /// Removes every entry logged at position >= `position`.
  void drop_since(std::uint64_t position);

  std::size_t size() const { return n_entries_; }
  std::size_t bytes() const { return bytes_; }
  std::uint64_t evictions() const { return evictions_; }

 private:
  struct Entry {
    std::uint64_t hash = 0;
    std::unique_ptr<std::uint64_t[]> key;
    std::uint32_t key_words = 0;
    std::uint32_t next = 0;        // chain: entry index + 1, 0 = end
    std::uint32_t generation = 0;  // bumped when the slot is reused
    bool alive = false;
    bool hit = false;
    mpz_class count;
  };
  struct LogRecord {
    std::uint32_t entry;
    std::uint32_t generation;
  };

  std::size_t entry_bytes(const Entry& e) const;
  void remove(std::uint32_t index);
  void evict();
  void grow_table();

  std::size_t max_bytes_;
  std::uint32_t bits_per_var_;
  std::uint32_t bits_per_clause_;
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> free_;     // reusable entry slots
  std::vector<std::uint32_t> buckets_;  // entry index + 1, 0 = empty
  std::vector<LogRecord> log_;
  std::uint64_t log_base_ = 0;  // absolute position of log_[0]
  std::size_t log_head_ = 0;    // eviction point in log_
  std::size_t n_entries_ = 0;
  std::size_t bytes_ = 0;
  std::uint64_t evictions_ = 0;
};

}  // namespace assay::count::exact
