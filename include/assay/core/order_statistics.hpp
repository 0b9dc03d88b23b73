// Order statistics of many 64-bit keys at a few ranks, without sorting them all. Internal API
// (namespace assay::detail), used by the nDSC retention curve, which needs the keys at ~400
// ranks of millions of voxels.
//
// How: a histogram of every key's top 16 bits finds the buckets that hold a wanted rank; a
// histogram of the next 8 bits of those buckets' keys narrows each wanted rank to a sub-bucket;
// the keys of the wanted sub-buckets are gathered and sorted. That is three reads of the keys
// and a sort of a small share of them, against a full radix sort's passes of reads and writes.
// Buckets are contiguous ranges of keys, so the answers are those of a full sort. Many equal
// keys can make a wanted sub-bucket large; it is sorted whole (never more than one full sort).
//
// Example:
//   std::vector<std::uint64_t> keys = {7, 3, 9, 3, 1};   // any order
//   KeyRanks ranks(keys, {0, 2, 4});                     // the ranks to know, each < size
//   ranks.key_at(2);               // 3: the third smallest (sorted keys: 1, 3, 3, 7, 9)
//   ranks.count_less(3);           // 1: keys below it (only for a key returned by key_at)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace assay::detail {

class KeyRanks {
 public:
  /// Every rank must be < keys.size(); duplicates are fine. The keys are read, not kept.
  KeyRanks(std::span<const std::uint64_t> keys, std::vector<std::size_t> ranks);

  /// The same, with the first histogram made by the caller while it wrote the keys (one pass
  /// over them less): top_counts[top_bucket(k)] = how many keys k fall in each bucket.
  KeyRanks(std::span<const std::uint64_t> keys, std::vector<std::size_t> ranks,
           std::vector<std::size_t> top_counts);
  static constexpr std::size_t kTopBuckets = std::size_t{1} << 16;
  static std::size_t top_bucket(std::uint64_t key) { return static_cast<std::size_t>(key >> 48); }

  /// The key at `rank` in ascending order; `rank` must be one of those given.
  std::uint64_t key_at(std::size_t rank) const;

  /// How many keys are smaller than `key`, which must be key_at(r) for a given rank r.
  std::size_t count_less(std::uint64_t key) const;

 private:
  // One gathered sub-bucket: keys with top 24 bits `prefix`, the first of rank `first_rank`,
  // sorted in gathered_[offset, offset + size).
  struct Group {
    std::uint64_t prefix = 0;
    std::size_t first_rank = 0, offset = 0, size = 0;
  };
  const Group& group_of(std::uint64_t key) const;

  std::vector<Group> groups_;                                 // ascending prefix
  std::vector<std::uint64_t> gathered_;                       // sorted, group after group
  std::vector<std::pair<std::size_t, std::uint64_t>> known_;  // (rank, key), ascending rank
};

}  // namespace assay::detail
