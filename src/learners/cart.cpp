// cart: rpart's classification tree. See include/assay/learners/cart.hpp for the rules; this file
// follows rpart's arithmetic step by step (same sums in the same order), because the choice
// between two splits of (mathematically) equal Gini improvement is decided by rounding.
//
// Data layout while growing: for every feature, the train rows sorted by that feature (in rpart's
// sort order, ties included) as (local row, dense rank of the value) entries, n entries per
// feature. A node owns the same range [begin, end) of every feature's entries; splitting a node
// partitions each range stably into left rows then right rows, so the children's ranges stay
// sorted without sorting again (rpart does the same with its `sorts` matrix).
#include "assay/learners/cart.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "assay/core/thread_pool.hpp"
#include "learners/model_state.hpp"

namespace assay::learners {
namespace {

// rpart's direction codes: kLeft means rows with x < threshold go to the left child.
constexpr int kLeft = -1;
constexpr int kRight = 1;

// Below this many entries (rows x features) a node's work runs on one thread.
constexpr std::size_t kParallelWork = 1 << 16;

// Sorts x[start..stop] (inclusive) ascending and moves `carry` along, making the same
// comparisons and swaps as rpart's own sort (median-of-three quicksort, insertion sort for short
// runs), so tied values end up in rpart's order. That order fixes the rounding of the running
// sums in the split search, hence which of two equally good splits wins.
void rpart_order_sort(double* x, std::uint32_t* carry, std::ptrdiff_t start, std::ptrdiff_t stop) {
  while (start < stop) {
    if (stop - start < 11) {
      for (std::ptrdiff_t i = start + 1; i <= stop; ++i) {
        const double value = x[i];
        const std::uint32_t tag = carry[i];
        std::ptrdiff_t j = i - 1;
        for (; j >= start && x[j] > value; --j) {
          x[j + 1] = x[j];
          carry[j + 1] = carry[j];
        }
        x[j + 1] = value;
        carry[j + 1] = tag;
      }
      return;
    }
    std::ptrdiff_t lo = start;
    std::ptrdiff_t hi = stop;
    const std::ptrdiff_t mid = (start + stop) / 2;
    double pivot = x[mid];
    if (x[lo] >= x[mid]) {
      if (x[hi] > x[mid]) pivot = x[lo] > x[hi] ? x[hi] : x[lo];
    } else if (x[hi] < x[mid]) {
      pivot = x[lo] > x[hi] ? x[lo] : x[hi];
    }
    while (lo < hi) {
      while (x[lo] < pivot) ++lo;
      while (x[hi] > pivot) --hi;
      if (lo < hi) {
        if (x[lo] > x[hi]) {
          std::swap(x[lo], x[hi]);
          std::swap(carry[lo], carry[hi]);
        }
        ++lo;
        --hi;
      }
    }
    // Three parts: < pivot, == pivot (done), > pivot; recurse on the shorter outer part.
    while (x[lo] >= pivot && lo > start) --lo;
    while (x[hi] <= pivot && hi < stop) ++hi;
    if (lo - start < stop - hi) {
      if (lo - start > 0) rpart_order_sort(x, carry, start, lo);
      start = hi;
    } else {
      if (stop - hi > 0) rpart_order_sort(x, carry, hi, stop);
      stop = lo;
    }
  }
}

// Columns at least this long are radix-sorted first (rpart's quicksort only if they have ties).
constexpr std::size_t kRadixRows = std::size_t{1} << 16;

// Sorts x ascending and moves `order` along; equal values in any order (callers use it only when
// all values differ). LSD radix sort on the IEEE bits.
void sort_fast(std::vector<double>& x, std::vector<std::uint32_t>& order) {
  const std::size_t n = x.size();
  constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
  std::vector<std::uint64_t> key(n), key_out(n);
  std::vector<std::uint32_t> order_out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto bits = std::bit_cast<std::uint64_t>(x[i]);
    key[i] = (bits & kSign) != 0 ? ~bits : bits | kSign;  // unsigned order = numeric order
  }
  // 8-bit digits (256 buckets keep the scatter in cache), all histograms in one pass.
  constexpr int kBits = 8;
  constexpr int kPasses = 64 / kBits;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  std::vector<std::size_t> counts(kPasses * kBuckets, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (int pass = 0; pass < kPasses; ++pass) {
      ++counts[pass * kBuckets + ((key[i] >> (pass * kBits)) & (kBuckets - 1))];
    }
  }
  for (int pass = 0; pass < kPasses; ++pass) {
    std::size_t* start = counts.data() + pass * kBuckets;
    if (std::count(start, start + kBuckets, n) == 1) continue;  // one bucket: nothing moves
    std::size_t sum = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) sum += std::exchange(start[b], sum);
    const int shift = pass * kBits;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = start[(key[i] >> shift) & (kBuckets - 1)]++;
      key_out[at] = key[i];
      order_out[at] = order[i];
    }
    key.swap(key_out);
    order.swap(order_out);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t bits = (key[i] & kSign) != 0 ? key[i] & ~kSign : ~key[i];
    x[i] = std::bit_cast<double>(bits);
  }
}

struct Entry {
  std::uint32_t row;   // local train row 0..n-1
  std::uint32_t rank;  // dense rank of the row's value among the feature's distinct values
};

// The best split of one feature in one node, as rpart's gini() reports it.
struct FeatureSplit {
  bool tried = false;  // false: no rows of positive weight, or one distinct value among them
  double improve = 0;
  double threshold = 0;
  int direction = kLeft;
};

// A node while growing (rpart's struct node, minus surrogates and competitors).
struct GrowNode {
  std::int64_t number = 1;
  std::size_t n_obs = 0;
  double sum_wt = 0;
  double risk = 0;
  double complexity = 0;
  int yval = 0;
  std::vector<double> class_wt;
  int var = -1;
  double threshold = 0;
  int direction = kLeft;
  int left = -1;
  int right = -1;
};

// A fitted tree, flat: children by index, leaves with their class probabilities.
struct FlatNode {
  int var = -1;  // -1 = leaf
  double threshold = 0;
  bool less_goes_left = true;
  int left = -1;
  int right = -1;
  std::size_t prob_offset = 0;
};

class CartModel : public Model {
 public:
  CartModel(std::vector<FlatNode> nodes, std::vector<double> probs, std::size_t n_classes,
            Json description)
      : nodes_(std::move(nodes)),
        probs_(std::move(probs)),
        n_classes_(n_classes),
        description_(std::move(description)) {}

  std::size_t n_outputs() const override { return n_classes_; }

  void predict(const Dataset& data, std::span<const std::uint32_t> rows,
               std::span<double> out) const override {
    ASSAY_ASSERT(out.size() == rows.size() * n_classes_);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const double* x = data.row(rows[r]);
      int at = 0;
      while (nodes_[at].var >= 0) {
        const FlatNode& node = nodes_[at];
        const bool less = x[node.var] < node.threshold;
        at = (less == node.less_goes_left) ? node.left : node.right;
      }
      std::copy_n(probs_.begin() + static_cast<std::ptrdiff_t>(nodes_[at].prob_offset), n_classes_,
                  out.begin() + static_cast<std::ptrdiff_t>(r * n_classes_));
    }
  }

  Json description() const override { return description_; }

  // Nodes as parallel arrays (preorder: children after their parent).
  Json save() const override {
    std::vector<std::int32_t> var, left, right, less_goes_left;
    std::vector<double> threshold;
    std::vector<std::uint64_t> prob_offset;
    for (const FlatNode& node : nodes_) {
      var.push_back(node.var);
      threshold.push_back(node.threshold);
      less_goes_left.push_back(node.less_goes_left ? 1 : 0);
      left.push_back(node.left);
      right.push_back(node.right);
      prob_offset.push_back(node.prob_offset);
    }
    return Json{{"learner", "cart"},
                {"n_classes", n_classes_},
                {"var", state::pack(var)},
                {"threshold", state::pack(threshold)},
                {"less_goes_left", state::pack(less_goes_left)},
                {"left", state::pack(left)},
                {"right", state::pack(right)},
                {"prob_offset", state::pack(prob_offset)},
                {"probs", state::pack(probs_)},
                {"description", description_}};
  }

 private:
  std::vector<FlatNode> nodes_;
  std::vector<double> probs_;
  std::size_t n_classes_;
  Json description_;
};

class Grower {
 public:
  Grower(const Dataset& data, std::span<const std::uint32_t> train_rows, const CartParams& params,
         int threads)
      : data_(data),
        params_(params),
        threads_(std::max(1, threads)),
        n_(train_rows.size()),
        p_(data.n_features),
        k_(data.n_classes()),
        train_rows_(train_rows) {
    ASSAY_ASSERT(n_ > 0 && n_ < std::numeric_limits<std::uint32_t>::max());
    edge_ = params.min_bucket > 0 ? params.min_bucket
                                  : static_cast<int>(std::round(params.min_split / 3.0));
    // rpart with minbucket 0 never accepts an empty side either (its Gini is NaN there).
    edge_ = std::max(edge_, 1);
    max_node_ = (std::int64_t{1} << params.max_depth) - 1;
    cls_.resize(n_);
    weight_.assign(n_, 1.0);
    weighted_ = !data.weights.empty();
    for (std::size_t i = 0; i < n_; ++i) {
      cls_[i] = data.y_class[train_rows[i]];
      if (weighted_) weight_[i] = data.weights[train_rows[i]];
    }
    has_zero_weight_ =
        weighted_ && std::any_of(weight_.begin(), weight_.end(), [](double w) { return w == 0; });
    set_priors();
    sort_features();
    row_left_.assign(n_, 0);
  }

  std::unique_ptr<Model> grow() {
    GrowNode root;
    root.number = 1;
    nodes_.push_back(root);
    evaluate(0, 0, n_);
    nodes_[0].complexity = nodes_[0].risk;
    alpha_ = params_.cp * nodes_[0].risk;
    std::vector<int> active(p_);
    for (std::size_t f = 0; f < p_; ++f) active[f] = static_cast<int>(f);
    double sum_risk = 0;
    partition(0, 0, n_, active, &sum_risk);
    return build_model();
  }

 private:
  // rpart's priors and "altered priors" for the default parameters (prior = weighted class
  // shares, 0/1 loss), computed with R's and rpart's arithmetic: R sums the class weights in long
  // double (tapply/sum), rpart's C code in double.
  void set_priors() {
    std::vector<long double> counts_ld(k_, 0.0L);
    std::vector<double> freq(k_, 0.0);
    double total = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      counts_ld[cls_[i]] += weight_[i];
      freq[cls_[i]] += weight_[i];
      total += weight_[i];
    }
    if (!(total > 0)) {
      throw LearnerFailure(fmt::format("the {} train rows have total weight 0", n_));
    }
    counts_.resize(k_);
    long double counts_sum = 0.0L;
    for (std::size_t j = 0; j < k_; ++j) {
      counts_[j] = static_cast<double>(counts_ld[j]);
      counts_sum += counts_[j];
    }
    prior_.resize(k_);
    for (std::size_t j = 0; j < k_; ++j) prior_[j] = counts_[j] / static_cast<double>(counts_sum);

    for (std::size_t j = 0; j < k_; ++j) freq[j] /= total;
    prior_scaled_ = prior_;
    aprior_.assign(k_, 0.0);
    double loss_total = 0;
    for (std::size_t i = 0; i < k_; ++i) {
      for (std::size_t j = 0; j < k_; ++j) {
        const double loss = i == j ? 0.0 : 1.0;
        loss_total += loss * prior_[i];
        aprior_[i] += loss * prior_[i];
      }
    }
    for (std::size_t i = 0; i < k_; ++i) {
      if (freq[i] > 0) {
        prior_scaled_[i] /= freq[i];
        aprior_[i] /= (loss_total * freq[i]);
      }
    }
  }

  // x value of local row `row` for feature f.
  double value(std::size_t f, std::uint32_t row) const {
    return data_.x[static_cast<std::size_t>(train_rows_[row]) * p_ + f];
  }

  void sort_features() {
    entries_.resize(n_ * p_);
    // Features in groups of 8 (one cache line of a row-major row), so X is read once per group.
    constexpr std::size_t kGroup = 8;
    const std::size_t groups = (p_ + kGroup - 1) / kGroup;
    parallel_for(
        groups,
        [&](std::size_t g) {
          const std::size_t first = g * kGroup;
          const std::size_t width = std::min(kGroup, p_ - first);
          std::vector<double> columns(width * n_);
          for (std::size_t i = 0; i < n_; ++i) {
            const double* row = data_.x.data() + static_cast<std::size_t>(train_rows_[i]) * p_;
            for (std::size_t c = 0; c < width; ++c) columns[c * n_ + i] = row[first + c];
          }
          std::vector<double> x(n_);
          std::vector<std::uint32_t> order(n_);
          for (std::size_t c = 0; c < width; ++c) {
            const double* column = columns.data() + c * n_;
            std::copy_n(column, n_, x.begin());
            for (std::size_t i = 0; i < n_; ++i) order[i] = static_cast<std::uint32_t>(i);
            // rpart's own sort fixes the order of tied values, which matters; distinct values
            // have one sorted order, whichever sort finds it. Long columns: a radix sort first,
            // and rpart's sort only if the column turns out to have ties.
            bool ties = true;
            if (n_ >= kRadixRows) {
              sort_fast(x, order);
              ties = false;
              for (std::size_t i = 1; i < n_ && !ties; ++i) ties = x[i] == x[i - 1];
              if (ties) {
                std::copy_n(column, n_, x.begin());
                for (std::size_t i = 0; i < n_; ++i) order[i] = static_cast<std::uint32_t>(i);
              }
            }
            if (ties) {
              rpart_order_sort(x.data(), order.data(), 0, static_cast<std::ptrdiff_t>(n_) - 1);
            }
            Entry* out = entries_.data() + (first + c) * n_;
            std::uint32_t rank = 0;
            for (std::size_t i = 0; i < n_; ++i) {
              if (i > 0 && x[i] != x[i - 1]) ++rank;
              out[i] = {order[i], rank};
            }
          }
        },
        threads_);
  }

  // rpart's ginidev: weighted class sums (in the order of feature 0, as rpart), the predicted
  // class (first of least risk) and the risk.
  void evaluate(int node_index, std::size_t begin, std::size_t end) {
    GrowNode& node = nodes_[node_index];
    node.class_wt.assign(k_, 0.0);
    double sum_wt = 0;
    const Entry* e = entries_.data();  // feature 0
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t row = e[i].row;
      node.class_wt[cls_[row]] += weight_[row];
      sum_wt += weight_[row];
    }
    node.n_obs = end - begin;
    node.sum_wt = sum_wt;
    double dev = 0;
    int best = 0;
    for (std::size_t i = 0; i < k_; ++i) {
      double risk = 0;
      for (std::size_t j = 0; j < k_; ++j) {
        const double loss = i == j ? 0.0 : 1.0;
        risk += node.class_wt[j] * loss * prior_scaled_[j];
      }
      if (i == 0 || risk < dev) {
        best = static_cast<int>(i);
        dev = risk;
      }
    }
    node.yval = best;
    node.risk = dev;
  }

  struct Item {
    std::uint32_t rank;
    std::int32_t cls;
    double weight;
    std::uint32_t row;
  };

  // rpart's gini() on one feature's rows of positive weight, in sorted order: item(i) -> Item
  // for i < count (item(count) must be callable; its value is never used).
  template <int kClasses, class Get>
  FeatureSplit gini(std::size_t count, const Get& item, std::size_t feature, double* left,
                    double* right) const {
    // kClasses > 0: the class count known at compile time (2: unrolled loops), else k_.
    const std::size_t n_classes = kClasses > 0 ? static_cast<std::size_t>(kClasses) : k_;
    FeatureSplit out;
    if (count == 0 || item(0).rank == item(count - 1).rank) return out;
    out.tried = true;
    const double* aprior = aprior_.data();
    std::fill(left, left + n_classes, 0.0);
    std::fill(right, right + n_classes, 0.0);
    double lwt = 0;
    double rwt = 0;
    std::size_t rtot = 0;
    std::size_t ltot = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const Item it = item(i);
      rwt += aprior[it.cls] * it.weight;
      right[it.cls] += it.weight;
      ++rtot;
    }
    double total_ss = 0;
    for (std::size_t j = 0; j < n_classes; ++j) {
      const double p = aprior[j] * right[j] / rwt;
      total_ss += rwt * (p * (1.0 - p));
    }
    double best = total_ss;
    std::size_t where = 0;
    int direction = kLeft;
    const std::size_t edge = static_cast<std::size_t>(edge_);
    Item next = item(0);
    for (std::size_t i = 0; rtot > edge; ++i) {
      const Item it = next;
      next = item(i + 1);
      rwt -= aprior[it.cls] * it.weight;
      lwt += aprior[it.cls] * it.weight;
      --rtot;
      ++ltot;
      right[it.cls] -= it.weight;
      left[it.cls] += it.weight;
      if (ltot < edge || next.rank == it.rank) continue;
      // Screen without divisions: rpart's sum equals (lwt + rwt) - sl / lwt - sr / rwt up to
      // rounding of relative size ~ rows * 1e-16, so a candidate more than 1e-6 * weight worse
      // than the best cannot win in exact arithmetic either; the others get rpart's formula.
      double sl = 0;
      double sr = 0;
      for (std::size_t j = 0; j < n_classes; ++j) {
        const double u = aprior[j] * left[j];
        const double v = aprior[j] * right[j];
        sl += u * u;
        sr += v * v;
      }
      const double weight = lwt + rwt;
      if (sl * rwt + sr * lwt < (weight - best - 1e-6 * weight) * (lwt * rwt)) continue;
      double temp = 0;
      double lmean = 0;
      double rmean = 0;
      for (std::size_t j = 0; j < n_classes; ++j) {
        double p = aprior[j] * left[j] / lwt;
        temp += lwt * (p * (1.0 - p));
        lmean += p * static_cast<double>(j);
        p = aprior[j] * right[j] / rwt;
        temp += rwt * (p * (1.0 - p));
        rmean += p * static_cast<double>(j);
      }
      if (temp < best) {
        best = temp;
        where = i;
        direction = lmean < rmean ? kLeft : kRight;
      }
    }
    out.improve = total_ss - best;
    if (out.improve > 0) {
      out.direction = direction;
      out.threshold = (value(feature, item(where).row) + value(feature, item(where + 1).row)) / 2;
    }
    return out;
  }

  FeatureSplit scan_feature(std::size_t f, std::size_t begin, std::size_t end,
                            std::vector<Item>& buffer) const {
    std::vector<double> counts(2 * k_);
    double* left = counts.data();
    double* right = counts.data() + k_;
    const Entry* e = entries_.data() + f * n_ + begin;
    const std::size_t count = end - begin;
    const std::int32_t* cls = cls_.data();
    if (!weighted_) {
      auto item = [&](std::size_t i) {
        if (i >= count) return Item{0, 0, 1.0, 0};
        return Item{e[i].rank, cls[e[i].row], 1.0, e[i].row};
      };
      return k_ == 2 ? gini<2>(count, item, f, left, right) : gini<0>(count, item, f, left, right);
    }
    if (!has_zero_weight_) {
      const double* weight = weight_.data();
      auto item = [&](std::size_t i) {
        if (i >= count) return Item{0, 0, 1.0, 0};
        return Item{e[i].rank, cls[e[i].row], weight[e[i].row], e[i].row};
      };
      return k_ == 2 ? gini<2>(count, item, f, left, right) : gini<0>(count, item, f, left, right);
    }
    buffer.clear();
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t row = e[i].row;
      if (weight_[row] > 0) buffer.push_back({e[i].rank, cls_[row], weight_[row], row});
    }
    auto item = [&](std::size_t i) { return i < buffer.size() ? buffer[i] : Item{0, 0, 1.0, 0}; };
    return k_ == 2 ? gini<2>(buffer.size(), item, f, left, right)
                   : gini<0>(buffer.size(), item, f, left, right);
  }

  // rpart's bsplit: the primary split over every active feature, or false.
  bool best_split(int node_index, std::size_t begin, std::size_t end,
                  const std::vector<int>& active) {
    std::vector<FeatureSplit> splits(active.size());
    const std::size_t work = (end - begin) * active.size();
    if (threads_ > 1 && work >= kParallelWork) {
      parallel_for(
          active.size(),
          [&](std::size_t a) {
            std::vector<Item> buffer;
            splits[a] = scan_feature(static_cast<std::size_t>(active[a]), begin, end, buffer);
          },
          threads_);
    } else {
      for (std::size_t a = 0; a < active.size(); ++a) {
        splits[a] = scan_feature(static_cast<std::size_t>(active[a]), begin, end, item_buffer_);
      }
    }
    // In feature order, as rpart: its threshold for "worth keeping" grows with the largest
    // improvement seen so far in the whole tree, and ties keep the earlier feature.
    int chosen = -1;
    double chosen_improve = 0;
    for (std::size_t a = 0; a < active.size(); ++a) {
      const FeatureSplit& s = splits[a];
      if (!s.tried) continue;
      if (s.improve > improve_scale_) improve_scale_ = s.improve;
      if (s.improve > improve_scale_ * 1e-10) {
        if (chosen < 0 || s.improve > chosen_improve) {
          chosen = static_cast<int>(a);
          chosen_improve = s.improve;
        }
      }
    }
    if (chosen < 0) return false;
    GrowNode& node = nodes_[node_index];
    node.var = active[chosen];
    node.threshold = splits[chosen].threshold;
    node.direction = splits[chosen].direction;
    return true;
  }

  // rpart's nodesplit: marks each row's side, then partitions every active feature's range
  // stably (left rows first). Returns the number of rows going left.
  std::size_t split_rows(int node_index, std::size_t begin, std::size_t end,
                         const std::vector<int>& active) {
    const GrowNode& node = nodes_[node_index];
    const Entry* e = entries_.data() + static_cast<std::size_t>(node.var) * n_;
    const auto var = static_cast<std::size_t>(node.var);
    // Sorted by x, so the rows with x < threshold (rpart's test) are a prefix of the range.
    const Entry* less_end = std::partition_point(e + begin, e + end, [&](const Entry& entry) {
      return value(var, entry.row) < node.threshold;
    });
    const std::size_t n_less = static_cast<std::size_t>(less_end - (e + begin));
    const bool less_goes_left = node.direction == kLeft;
    for (std::size_t i = begin; i < end; ++i) {
      row_left_[e[i].row] = ((i - begin < n_less) == less_goes_left) ? 1 : 0;
    }
    const std::size_t n_left = less_goes_left ? n_less : (end - begin) - n_less;
    auto partition_feature = [&](std::size_t f, std::vector<Entry>& spill) {
      Entry* range = entries_.data() + f * n_;
      spill.clear();
      std::size_t out = begin;
      for (std::size_t i = begin; i < end; ++i) {
        if (row_left_[range[i].row] != 0) {
          range[out++] = range[i];
        } else {
          spill.push_back(range[i]);
        }
      }
      std::copy(spill.begin(), spill.end(), range + out);
    };
    const std::size_t work = (end - begin) * active.size();
    if (threads_ > 1 && work >= kParallelWork) {
      parallel_for(
          active.size(),
          [&](std::size_t a) {
            std::vector<Entry> spill;
            spill.reserve(end - begin - n_left);
            partition_feature(static_cast<std::size_t>(active[a]), spill);
          },
          threads_);
    } else {
      for (int f : active) partition_feature(static_cast<std::size_t>(f), entry_buffer_);
    }
    return n_left;
  }

  // Features that still vary in [begin, end); the others cannot split any descendant, so their
  // entries are neither scanned nor partitioned again. Feature 0 stays (rpart sums node weights
  // in its order).
  std::vector<int> still_varying(std::size_t begin, std::size_t end,
                                 const std::vector<int>& active) const {
    std::vector<int> out;
    out.reserve(active.size());
    for (int f : active) {
      const Entry* e = entries_.data() + static_cast<std::size_t>(f) * n_;
      if (f == 0 || e[begin].rank != e[end - 1].rank) out.push_back(f);
    }
    return out;
  }

  // rpart's partition(): grow the subtree of node_index on rows [begin, end), then prune it back
  // where its complexity is <= alpha. Returns the number of splits kept; *sum_risk = the risk of
  // the kept subtree's leaves.
  int partition(int node_index, std::size_t begin, std::size_t end, std::vector<int> active,
                double* sum_risk) {
    double tempcp;
    if (nodes_[node_index].number > 1) {
      evaluate(node_index, begin, end);
      tempcp = nodes_[node_index].risk;
      if (tempcp > nodes_[node_index].complexity) tempcp = nodes_[node_index].complexity;
    } else {
      tempcp = nodes_[node_index].risk;
    }
    auto make_leaf = [&] {
      GrowNode& node = nodes_[node_index];
      node.complexity = alpha_;
      node.var = -1;
      node.left = node.right = -1;
      *sum_risk = node.risk;
      return 0;
    };
    if (nodes_[node_index].n_obs < static_cast<std::size_t>(params_.min_split) ||
        tempcp <= alpha_ || nodes_[node_index].number > max_node_) {
      return make_leaf();
    }
    active = still_varying(begin, end, active);
    if (!best_split(node_index, begin, end, active)) return make_leaf();
    const std::size_t n_left = split_rows(node_index, begin, end, active);

    const double risk = nodes_[node_index].risk;
    const std::int64_t number = nodes_[node_index].number;
    const int left = static_cast<int>(nodes_.size());
    nodes_.emplace_back();
    nodes_[left].number = 2 * number;
    nodes_[left].complexity = tempcp - alpha_;
    nodes_[node_index].left = left;
    double left_risk = 0;
    int left_split = partition(left, begin, begin + n_left, active, &left_risk);

    tempcp = (risk - left_risk) / (left_split + 1);
    const double tempcp2 = risk - nodes_[left].risk;
    if (tempcp < tempcp2) tempcp = tempcp2;
    if (tempcp > nodes_[node_index].complexity) tempcp = nodes_[node_index].complexity;

    const int right = static_cast<int>(nodes_.size());
    nodes_.emplace_back();
    nodes_[right].number = 2 * number + 1;
    nodes_[right].complexity = tempcp - alpha_;
    nodes_[node_index].right = right;
    double right_risk = 0;
    int right_split = partition(right, begin + n_left, end, std::move(active), &right_risk);

    // My complexity, given which child subtree would collapse first (rpart's weakest link).
    const double left_cp = nodes_[left].complexity;
    const double right_cp = nodes_[right].complexity;
    tempcp = (risk - (left_risk + right_risk)) / (left_split + right_split + 1);
    if (right_cp > left_cp) {
      if (tempcp > left_cp) {
        left_risk = nodes_[left].risk;
        left_split = 0;
        tempcp = (risk - (left_risk + right_risk)) / (left_split + right_split + 1);
        if (tempcp > right_cp) {
          right_risk = nodes_[right].risk;
          right_split = 0;
        }
      }
    } else if (tempcp > right_cp) {
      right_split = 0;
      right_risk = nodes_[right].risk;
      tempcp = (risk - (left_risk + right_risk)) / (left_split + right_split + 1);
      if (tempcp > left_cp) {
        left_risk = nodes_[left].risk;
        left_split = 0;
      }
    }
    const double complexity = (risk - (left_risk + right_risk)) / (left_split + right_split + 1);
    nodes_[node_index].complexity = complexity;
    if (complexity <= alpha_) {
      GrowNode& node = nodes_[node_index];
      node.var = -1;
      node.left = node.right = -1;
      *sum_risk = risk;
      return 0;
    }
    *sum_risk = left_risk + right_risk;
    return left_split + right_split + 1;
  }

  // Leaf probabilities as rpart's R code computes them: class weight * prior / max(1, class
  // weight of all train rows), normalised by a long-double row sum (R's rowSums).
  void leaf_probabilities(const GrowNode& node, std::vector<double>& out) const {
    const std::size_t at = out.size();
    out.resize(at + k_);
    long double sum = 0.0L;
    for (std::size_t j = 0; j < k_; ++j) {
      const double scaled = node.class_wt[j] * (prior_[j] / std::max(1.0, counts_[j]));
      out[at + j] = scaled;
      sum += scaled;
    }
    for (std::size_t j = 0; j < k_; ++j) out[at + j] /= static_cast<double>(sum);
  }

  std::unique_ptr<Model> build_model() const {
    std::vector<FlatNode> flat;
    std::vector<double> probs;
    Json tree = Json::array();
    std::size_t leaves = 0;
    int depth = 0;
    // Preorder, left first: rpart's frame order.
    auto visit = [&](auto&& self, int index, int level) -> int {
      const GrowNode& node = nodes_[index];
      const int at = static_cast<int>(flat.size());
      flat.emplace_back();
      std::vector<double> node_probs;
      leaf_probabilities(node, node_probs);
      if (params_.record_tree) {
        Json j = {{"node", node.number},
                  {"var", node.left < 0 ? "<leaf>" : data_.feature_names[node.var]},
                  {"n", node.n_obs},
                  {"wt", node.sum_wt},
                  {"yval", node.yval},
                  {"counts", node.class_wt},
                  {"prob", node_probs}};
        if (node.left >= 0) {
          j["threshold"] = node.threshold;
          j["ncat"] = node.direction;
        }
        tree.push_back(std::move(j));
      }
      if (node.left < 0) {
        ++leaves;
        depth = std::max(depth, level);
        flat[at].prob_offset = probs.size();
        probs.insert(probs.end(), node_probs.begin(), node_probs.end());
        return at;
      }
      flat[at].var = node.var;
      flat[at].threshold = node.threshold;
      flat[at].less_goes_left = node.direction == kLeft;
      const int left = self(self, node.left, level + 1);
      const int right = self(self, node.right, level + 1);
      flat[at].left = left;
      flat[at].right = right;
      return at;
    };
    visit(visit, 0, 0);
    Json description = {{"nodes", flat.size()}, {"leaves", leaves}, {"depth", depth}};
    if (params_.record_tree) description["tree"] = std::move(tree);
    return std::make_unique<CartModel>(std::move(flat), std::move(probs), k_,
                                       std::move(description));
  }

  const Dataset& data_;
  CartParams params_;
  int threads_;
  std::size_t n_;
  std::size_t p_;
  std::size_t k_;
  std::span<const std::uint32_t> train_rows_;
  int edge_ = 1;
  std::int64_t max_node_ = 0;
  std::vector<std::int32_t> cls_;
  std::vector<double> weight_;
  bool weighted_ = false;
  bool has_zero_weight_ = false;
  std::vector<double> counts_;        // R's weighted class counts of the train rows
  std::vector<double> prior_;         // R's priors: counts / sum(counts)
  std::vector<double> prior_scaled_;  // rpart's prior / class frequency (for the risk)
  std::vector<double> aprior_;        // rpart's altered priors (for the Gini index)
  std::vector<Entry> entries_;
  std::vector<std::uint8_t> row_left_;
  std::vector<GrowNode> nodes_;
  std::vector<Item> item_buffer_;
  std::vector<Entry> entry_buffer_;
  double alpha_ = 0;
  double improve_scale_ = 0;  // rpart's iscale: the largest improvement seen so far
};

class Cart : public Learner {
 public:
  explicit Cart(const CartParams& params) : params_(params) {}
  std::string name() const override { return "cart"; }
  bool supports(TaskKind task) const override { return task == TaskKind::classification; }

  std::unique_ptr<Model> fit(const Dataset& data, std::span<const std::uint32_t> train_rows,
                             const FitContext& context) const override {
    ASSAY_ASSERT(!train_rows.empty());
    if (data.task != TaskKind::classification) {
      fail("learner \"cart\" supports classification only, found a regression task");
    }
    Grower grower(data, train_rows, params_, context.threads);
    return grower.grow();
  }

 private:
  CartParams params_;
};

}  // namespace

std::unique_ptr<Model> state::load_cart(const Reader& read) {
  const std::size_t n_classes = read.count("n_classes", std::numeric_limits<std::int32_t>::max());
  const std::vector<std::int32_t> var = read.array<std::int32_t>("var");
  const std::size_t n = var.size();
  const auto threshold = read.array<double>("threshold", n);
  const auto less_goes_left = read.array<std::int32_t>("less_goes_left", n);
  const auto left = read.array<std::int32_t>("left", n);
  const auto right = read.array<std::int32_t>("right", n);
  const auto prob_offset = read.array<std::uint64_t>("prob_offset", n);
  std::vector<double> probs = read.array<double>("probs");
  if (n == 0 || n_classes == 0) read.invalid("an empty tree");
  std::vector<FlatNode> nodes(n);
  for (std::size_t i = 0; i < n; ++i) {
    FlatNode& node = nodes[i];
    node.var = var[i];
    node.threshold = threshold[i];
    node.less_goes_left = less_goes_left[i] != 0;
    node.left = left[i];
    node.right = right[i];
    node.prob_offset = prob_offset[i];
    // Children come after their parent, so walking down always ends at a leaf.
    auto child_ok = [&](std::int32_t c) {
      return c > static_cast<std::int64_t>(i) && c < static_cast<std::int64_t>(n);
    };
    const bool ok = node.var < 0
                        ? probs.size() >= n_classes && node.prob_offset <= probs.size() - n_classes
                        : child_ok(node.left) && child_ok(node.right);
    if (!ok) read.invalid(fmt::format("node {} points outside the tree", i));
  }
  return std::make_unique<CartModel>(std::move(nodes), std::move(probs), n_classes,
                                     read.field("description"));
}

CartParams cart_params_from_json(const Json& params) {
  ParamReader read("cart", params);
  CartParams p;
  const bool has_split =
      params.is_object() && params.contains("min_split") && !params["min_split"].is_null();
  p.min_bucket = static_cast<int>(read.integer("min_bucket", p.min_bucket, 0, 100'000'000));
  if (!has_split && p.min_bucket > 0) p.min_split = 3 * p.min_bucket;
  p.min_split = static_cast<int>(read.integer("min_split", p.min_split, 1, 1'000'000'000));
  p.cp = read.number("cp", p.cp, 0.0, 1.0);
  p.max_depth = static_cast<int>(read.integer("max_depth", p.max_depth, 1, 30));
  p.record_tree = read.boolean("record_tree", p.record_tree);
  read.finish();
  return p;
}

std::unique_ptr<Learner> make_cart(const CartParams& params) {
  if (params.min_split < 1) {
    fail("cart min_split: expected an integer >= 1, found {}", params.min_split);
  }
  if (params.min_bucket < 0) {
    fail("cart min_bucket: expected an integer >= 0, found {}", params.min_bucket);
  }
  if (!(params.cp >= 0 && params.cp <= 1)) {
    fail("cart cp: expected a number in [0, 1], found {}", params.cp);
  }
  if (params.max_depth < 1 || params.max_depth > 30) {
    fail("cart max_depth: expected an integer in [1, 30], found {}", params.max_depth);
  }
  return std::make_unique<Cart>(params);
}

std::unique_ptr<Learner> make_cart(const Json& params) {
  return make_cart(cart_params_from_json(params));
}

}  // namespace assay::learners
