// Connected components of 3-D binary masks: two passes with union-find. The first pass scans
// voxels in memory order and gives each foreground voxel the provisional label of an earlier
// neighbour (merging the labels of the others), or a new one; a set's root is its smallest
// provisional label, which belongs to the set's first voxel in memory order, so numbering roots
// in increasing order numbers components by first voxel (scipy.ndimage.label's order). Memory:
// one uint32 per voxel plus one per provisional label; no allocation per voxel.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/shift/segmentation.hpp"
#include "shift/segmentation_detail.hpp"

namespace assay::shift {
namespace detail {

void check_connectivity(int connectivity) {
  if (connectivity != 6 && connectivity != 18 && connectivity != 26) {
    fail("connectivity: expected 6, 18 or 26, found {}", connectivity);
  }
}

void check_size(std::size_t found, Grid3 grid, std::string_view what) {
  if (found != grid.size()) {
    fail("{}: expected {} values ({} x {} x {} voxels), found {}", what, grid.size(), grid.nx,
         grid.ny, grid.nz, found);
  }
  if (grid.size() >= std::numeric_limits<std::uint32_t>::max()) {
    fail("{}: expected fewer than 2^32 - 1 voxels, found {}", what, grid.size());
  }
}

std::size_t drop_small_components(Components& components, std::span<std::uint8_t> mask,
                                  std::size_t min_size) {
  std::vector<std::uint32_t> renumber(std::size_t{components.count} + 1, 0);
  std::vector<std::uint64_t> kept_sizes;
  std::uint32_t kept = 0;
  for (std::uint32_t c = 1; c <= components.count; ++c) {
    const auto size = components.sizes[c - 1];
    if (size >= min_size) {
      renumber[c] = ++kept;
      kept_sizes.push_back(size);
    }
  }
  const std::size_t removed = components.count - kept;
  if (removed == 0) return 0;
  auto& labels = components.labels;
  for (std::size_t block = 0; block < labels.size(); block += kSparseBlock) {
    const std::size_t end = std::min(labels.size(), block + kSparseBlock);
    // The mask's bytes are nonzero where the labels are (it was labelled): a quarter the reads.
    if (!any_nonzero(mask.data() + block, end - block)) continue;
    for (std::size_t v = block; v < end; ++v) {
      const std::uint32_t l = labels[v];
      if (l == 0) continue;
      const std::uint32_t r = renumber[l];
      labels[v] = r;
      if (r == 0) mask[v] = 0;
    }
  }
  components.count = kept;
  components.sizes = std::move(kept_sizes);
  return removed;
}

}  // namespace detail

namespace {

// An earlier neighbour: memory offset back, and which bounds it needs.
struct Neighbour {
  std::size_t back = 0;
  int di = 0, dj = 0, dk = 0;
};

std::vector<Neighbour> earlier_neighbours(Grid3 grid, int connectivity) {
  const int max_distance = connectivity == 6 ? 1 : connectivity == 18 ? 2 : 3;
  std::vector<Neighbour> out;
  for (int dk = -1; dk <= 0; ++dk) {
    for (int dj = -1; dj <= 1; ++dj) {
      for (int di = -1; di <= 1; ++di) {
        const bool earlier = dk < 0 || (dk == 0 && (dj < 0 || (dj == 0 && di < 0)));
        if (!earlier) continue;
        if (std::abs(di) + std::abs(dj) + std::abs(dk) > max_distance) continue;
        const std::ptrdiff_t offset = di + static_cast<std::ptrdiff_t>(grid.nx) *
                                               (dj + static_cast<std::ptrdiff_t>(grid.ny) * dk);
        out.push_back({static_cast<std::size_t>(-offset), di, dj, dk});
      }
    }
  }
  return out;
}

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];  // path halving
    x = parent[x];
  }
  return x;
}

// Merges the sets of a and b; the smaller root stays root.
void unite(std::vector<std::uint32_t>& parent, std::uint32_t a, std::uint32_t b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a < b) {
    parent[b] = a;
  } else if (b < a) {
    parent[a] = b;
  }
}

// Stretches of a row that the labelling passes test at once and skip when empty: within the
// rows that meet a lesion, most voxels are still background.
constexpr std::size_t kRunBlock = 16;

// First pass over one row: each foreground voxel takes the provisional label of an earlier
// neighbour (merging the labels of the others) or a new one.
void label_row(std::span<const std::uint8_t> mask, const std::vector<Neighbour>& neighbours,
               Grid3 grid, std::size_t j, std::size_t k, std::vector<std::uint32_t>& labels,
               std::vector<std::uint32_t>& parent) {
  const std::size_t nx = grid.nx, row = nx * (j + grid.ny * k);
  const bool j_low = j > 0, j_high = j + 1 < grid.ny, k_low = k > 0;
  for (std::size_t i = 0; i < nx; ++i) {
    if (i % kRunBlock == 0 &&
        !detail::any_nonzero(mask.data() + row + i, std::min(kRunBlock, nx - i))) {
      i += kRunBlock - 1;  // an empty stretch of the row
      continue;
    }
    const std::size_t v = row + i;
    if (!mask[v]) continue;
    const bool i_low = i > 0, i_high = i + 1 < nx;
    std::uint32_t label = 0;
    for (const auto& n : neighbours) {
      if ((n.di < 0 && !i_low) || (n.di > 0 && !i_high) || (n.dj < 0 && !j_low) ||
          (n.dj > 0 && !j_high) || (n.dk < 0 && !k_low)) {
        continue;
      }
      const std::uint32_t l = labels[v - n.back];
      if (l == 0 || l == label) continue;
      if (label == 0) {
        label = l;
      } else {
        unite(parent, label, l);
      }
    }
    if (label == 0) {
      label = static_cast<std::uint32_t>(parent.size());
      parent.push_back(label);
    }
    labels[v] = label;
  }
}

// Both passes into `out.labels`, which holds zeros; `rows` gets the starts of the rows with a
// foreground voxel, in memory order.
void label_into(std::span<const std::uint8_t> mask, Grid3 grid, int connectivity, Components& out,
                std::vector<std::size_t>& rows) {
  const auto neighbours = earlier_neighbours(grid, connectivity);
  auto& labels = out.labels;
  std::vector<std::uint32_t> parent{0};  // provisional label 0 = background
  const std::size_t nx = grid.nx;
  for (std::size_t k = 0; k < grid.nz; ++k) {
    for (std::size_t j = 0; j < grid.ny; ++j) {
      const std::size_t row = nx * (j + grid.ny * k);
      if (!detail::any_nonzero(mask.data() + row, nx)) continue;  // most rows: no lesion
      rows.push_back(row);
      label_row(mask, neighbours, grid, j, k, labels, parent);
    }
  }
  // Final numbers: roots in increasing order (= first-voxel order) get 1, 2, ...; a non-root's
  // root is smaller, so already numbered.
  std::vector<std::uint32_t> final_label(parent.size(), 0);
  out.count = 0;
  for (std::uint32_t l = 1; l < parent.size(); ++l) {
    const std::uint32_t root = find_root(parent, l);
    final_label[l] = root == l ? ++out.count : final_label[root];
  }
  out.sizes.assign(out.count, 0);
  for (const std::size_t row : rows) {
    for (std::size_t v = row; v < row + nx; v += kRunBlock) {
      const std::size_t end = std::min(row + nx, v + kRunBlock);
      if (!detail::any_nonzero(labels.data() + v, end - v)) continue;
      for (std::size_t u = v; u < end; ++u) {
        const std::uint32_t l = labels[u];
        if (l == 0) continue;
        const std::uint32_t f = final_label[l];
        labels[u] = f;
        ++out.sizes[f - 1];
      }
    }
  }
}

}  // namespace

Components label_components(std::span<const std::uint8_t> mask, Grid3 grid, int connectivity) {
  detail::check_connectivity(connectivity);
  detail::check_size(mask.size(), grid, "mask");
  Components out;
  out.labels.assign(grid.size(), 0);
  std::vector<std::size_t> rows;
  label_into(mask, grid, connectivity, out, rows);
  return out;
}

void detail::label_components_into(std::span<const std::uint8_t> mask, Grid3 grid, int connectivity,
                                   KeptLabels& kept) {
  check_connectivity(connectivity);
  check_size(mask.size(), grid, "mask");
  auto& labels = kept.components.labels;
  if (labels.size() != grid.size()) {
    labels.assign(grid.size(), 0);
  } else {
    for (const std::size_t row : kept.rows) {
      std::fill_n(labels.begin() + static_cast<std::ptrdiff_t>(row), kept.row_length, 0u);
    }
  }
  kept.rows.clear();
  kept.row_length = grid.nx;
  label_into(mask, grid, connectivity, kept.components, kept.rows);
}

std::size_t remove_small_lesions(std::span<std::uint8_t> mask, Grid3 grid, int connectivity,
                                 std::size_t min_lesion_size) {
  auto components = label_components(mask, grid, connectivity);
  return detail::drop_small_components(components, mask, min_lesion_size);
}

}  // namespace assay::shift
