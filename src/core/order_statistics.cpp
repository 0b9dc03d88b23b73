// KeyRanks: the keys at a few ranks by two histogram passes and a sort of the wanted buckets.
#include "assay/core/order_statistics.hpp"

#include <algorithm>

#include "assay/core/error.hpp"
#include "assay/core/radix_sort.hpp"

namespace assay::detail {

namespace {

constexpr std::size_t kTop = KeyRanks::kTopBuckets;  // buckets of the top 16 bits
constexpr std::size_t kNext = std::size_t{1} << 8;   // sub-buckets of the next 8 bits

std::size_t top_digit(std::uint64_t key) {
  return KeyRanks::top_bucket(key);
}

std::size_t next_digit(std::uint64_t key) {
  return static_cast<std::size_t>((key >> 40) & (kNext - 1));
}

// start[d] = keys in buckets before d; start[buckets] = all. The bucket holding rank r is the
// last d with start[d] <= r (empty buckets before it share its start).
std::size_t bucket_of(std::span<const std::size_t> start, std::size_t r) {
  return static_cast<std::size_t>(std::upper_bound(start.begin(), start.end(), r) - start.begin()) -
         1;
}

void to_starts(std::span<std::size_t> counts, std::size_t first) {
  for (std::size_t& c : counts) {
    const std::size_t count = c;
    c = first;
    first += count;
  }
}

// The top-16-bit buckets that hold a wanted rank, ascending, and each bucket's slot among them;
// the other buckets share one more slot, a discard pile: the passes over the keys then take no
// branch that the keys' order makes unpredictable.
struct TopLevel {
  std::vector<std::size_t> start;  // kTop + 1 entries
  std::vector<std::size_t> wanted;
  std::vector<std::uint32_t> slot;  // kTop entries; wanted.size() = discarded
};

// `counts`: how many keys fall in each top bucket (kTop entries).
TopLevel top_level(std::vector<std::size_t> counts, std::span<const std::size_t> ranks) {
  TopLevel top;
  top.start = std::move(counts);
  top.start.push_back(0);
  to_starts(top.start, 0);
  for (const std::size_t r : ranks) top.wanted.push_back(bucket_of(top.start, r));
  std::sort(top.wanted.begin(), top.wanted.end());
  top.wanted.erase(std::unique(top.wanted.begin(), top.wanted.end()), top.wanted.end());
  top.slot.assign(kTop, static_cast<std::uint32_t>(top.wanted.size()));
  for (std::size_t s = 0; s < top.wanted.size(); ++s) {
    top.slot[top.wanted[s]] = static_cast<std::uint32_t>(s);
  }
  return top;
}

// Per wanted bucket, the starts (as ranks among all keys) of its kNext sub-buckets and the end:
// kNext + 1 entries per slot (then the discard pile's counts).
std::vector<std::size_t> next_level(std::span<const std::uint64_t> keys, const TopLevel& top) {
  const std::size_t stride = kNext + 1;
  std::vector<std::size_t> start((top.wanted.size() + 1) * stride, 0);
  for (const std::uint64_t k : keys) ++start[top.slot[top_digit(k)] * stride + next_digit(k)];
  for (std::size_t s = 0; s < top.wanted.size(); ++s) {
    to_starts(std::span(start).subspan(s * stride, stride), top.start[top.wanted[s]]);
  }
  return start;
}

std::vector<std::size_t> top_counts(std::span<const std::uint64_t> keys) {
  std::vector<std::size_t> counts(kTop, 0);
  for (const std::uint64_t k : keys) ++counts[top_digit(k)];
  return counts;
}

}  // namespace

KeyRanks::KeyRanks(std::span<const std::uint64_t> keys, std::vector<std::size_t> ranks)
    : KeyRanks(keys, std::move(ranks), top_counts(keys)) {}

KeyRanks::KeyRanks(std::span<const std::uint64_t> keys, std::vector<std::size_t> ranks,
                   std::vector<std::size_t> counts) {
  const std::size_t n = keys.size();
  ASSAY_ASSERT(counts.size() == kTop);
  for (const std::size_t r : ranks) ASSAY_ASSERT(r < n);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.empty()) return;
  const TopLevel top = top_level(std::move(counts), ranks);
  const std::vector<std::size_t> next = next_level(keys, top);
  const std::size_t stride = kNext + 1;

  // The wanted sub-buckets, in key order (ranks ascend, and so do their sub-buckets).
  std::vector<std::int32_t> group_of_sub((top.wanted.size() + 1) * kNext, -1);
  for (const std::size_t r : ranks) {
    const auto s = static_cast<std::size_t>(top.slot[bucket_of(top.start, r)]);
    const std::size_t d = bucket_of(std::span(next).subspan(s * stride, stride), r);
    std::int32_t& g = group_of_sub[s * kNext + d];
    if (g >= 0) continue;
    g = static_cast<std::int32_t>(groups_.size());
    const std::size_t offset = groups_.empty() ? 0 : groups_.back().offset + groups_.back().size;
    groups_.push_back(Group{.prefix = (std::uint64_t{top.wanted[s]} << 8) | d,
                            .first_rank = next[s * stride + d],
                            .offset = offset,
                            .size = next[s * stride + d + 1] - next[s * stride + d]});
  }

  // Gather each wanted sub-bucket's keys into its range, then sort the ranges.
  gathered_.resize(groups_.back().offset + groups_.back().size);
  std::vector<std::size_t> fill(groups_.size());
  for (std::size_t g = 0; g < groups_.size(); ++g) fill[g] = groups_[g].offset;
  for (const std::uint64_t k : keys) {  // one branch, taken by the few gathered keys
    const std::int32_t g = group_of_sub[top.slot[top_digit(k)] * kNext + next_digit(k)];
    if (g >= 0) gathered_[fill[static_cast<std::size_t>(g)]++] = k;
  }
  std::vector<std::uint64_t> buffer;
  for (const Group& g : groups_) {
    buffer.resize(std::max(buffer.size(), g.size));
    radix_sort_keys(gathered_.data() + g.offset, buffer.data(), g.size,
                    ~std::uint64_t{0} >> 24);  // the top 24 bits are the group's
  }
  for (const std::size_t r : ranks) {
    const auto s = static_cast<std::size_t>(top.slot[bucket_of(top.start, r)]);
    const std::size_t d = bucket_of(std::span(next).subspan(s * stride, stride), r);
    const Group& g = groups_[static_cast<std::size_t>(group_of_sub[s * kNext + d])];
    known_.emplace_back(r, gathered_[g.offset + (r - g.first_rank)]);
  }
}

const KeyRanks::Group& KeyRanks::group_of(std::uint64_t key) const {
  const std::uint64_t prefix = key >> 40;
  const auto it = std::lower_bound(groups_.begin(), groups_.end(), prefix,
                                   [](const Group& g, std::uint64_t p) { return g.prefix < p; });
  ASSAY_ASSERT(it != groups_.end() && it->prefix == prefix);
  return *it;
}

std::uint64_t KeyRanks::key_at(std::size_t rank) const {
  const auto it = std::lower_bound(
      known_.begin(), known_.end(), rank,
      [](const std::pair<std::size_t, std::uint64_t>& k, std::size_t r) { return k.first < r; });
  ASSAY_ASSERT(it != known_.end() && it->first == rank);
  return it->second;
}

std::size_t KeyRanks::count_less(std::uint64_t key) const {
  const Group& g = group_of(key);
  const auto begin = gathered_.begin() + static_cast<std::ptrdiff_t>(g.offset);
  const auto end = begin + static_cast<std::ptrdiff_t>(g.size);
  return g.first_rank + static_cast<std::size_t>(std::lower_bound(begin, end, key) - begin);
}

}  // namespace assay::detail
