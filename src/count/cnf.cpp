// Cnf, writing DIMACS and expanding XORs; reading is in dimacs_read.cpp.
#include "assay/count/cnf.hpp"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/output_file.hpp"

namespace assay::count {

void Cnf::add_clause(std::span<const Var> clause) {
  literals.insert(literals.end(), clause.begin(), clause.end());
  starts.push_back(static_cast<std::uint32_t>(literals.size()));
}

std::vector<Var> Cnf::projected() const {
  if (has_projection) return projection;
  std::vector<Var> all(static_cast<std::size_t>(n_vars));
  for (Var v = 1; v <= n_vars; ++v) all[static_cast<std::size_t>(v - 1)] = v;
  return all;
}

void Cnf::set_projection(std::vector<Var> vars) {
  std::sort(vars.begin(), vars.end());
  vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
  projection = std::move(vars);
  has_projection = true;
}

namespace {

std::string gzip(std::string_view bytes, const std::string& path) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    fail("cannot write {}: zlib could not start", path);
  }
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int r = deflate(&z, Z_FINISH);
  const std::size_t used = out.size() - z.avail_out;
  deflateEnd(&z);
  if (r != Z_STREAM_END) fail("cannot write {}: compression failed", path);
  out.resize(used);
  return out;
}

}  // namespace

std::string write_dimacs(const Cnf& f, bool xor_lines) {
  if (!xor_lines && !f.xors.empty()) {
    fail("the formula has {} XOR constraints; expand them before writing plain DIMACS",
         f.xors.size());
  }
  std::string out;
  out.reserve(f.literals.size() * 6 + f.n_clauses() * 2 + 64);
  for (const auto& c : f.comments) out += "c " + c + "\n";
  // An XOR without variables and right-hand side 0 holds everywhere and has no DIMACS line ("x0"
  // is 0 = 1): it is left out.
  auto written = [](const XorConstraint& x) { return !x.vars.empty() || x.rhs; };
  const std::size_t n =
      f.n_clauses() +
      (xor_lines ? static_cast<std::size_t>(std::count_if(f.xors.begin(), f.xors.end(), written))
                 : 0);
  out += fmt::format("p cnf {} {}\n", f.n_vars, n);
  char buf[16];
  for (std::size_t i = 0; i < f.n_clauses(); ++i) {
    for (const Var lit : f.clause(i)) {
      const auto r = std::to_chars(buf, buf + sizeof buf, lit);
      out.append(buf, r.ptr);
      out += ' ';
    }
    out += "0\n";
  }
  if (xor_lines) {
    for (const auto& x : f.xors) {
      if (!written(x)) continue;
      out += 'x';
      for (std::size_t i = 0; i < x.vars.size(); ++i) {
        // The right-hand side is carried by the sign of the first variable: "x-1 2 0" is
        // not(x1) ^ x2 = 1, i.e. x1 ^ x2 = 0.
        const Var lit = (i == 0 && !x.rhs) ? -x.vars[i] : x.vars[i];
        out += fmt::format("{} ", lit);
      }
      out += "0\n";
    }
  }
  if (f.has_projection) {
    std::string list;
    for (const Var v : f.projection) list += fmt::format("{} ", v);
    out += "c p show " + list + "0\n";
    out += "c ind " + list + "0\n";
  }
  return out;
}

void write_dimacs_file(const Cnf& f, const std::string& path, bool xor_lines) {
  const std::string text = write_dimacs(f, xor_lines);
  const bool compress = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  write_file_atomic(path, compress ? gzip(text, path) : text);
}

void expand_xors(Cnf& f) {
  if (f.xors.empty()) return;
  if (!f.has_projection) f.set_projection(f.projected());
  for (const auto& x : f.xors) {
    if (x.vars.empty()) {
      if (x.rhs) f.add_clause(std::span<const Var>());  // 0 = 1: unsatisfiable
      continue;
    }
    // acc = vars[0] ^ ... ^ vars[i], one fresh variable per step.
    Var acc = x.vars[0];
    for (std::size_t i = 1; i < x.vars.size(); ++i) {
      const Var b = x.vars[i];
      const Var t = f.new_var();
      f.add_clause({-t, acc, b});
      f.add_clause({-t, -acc, -b});
      f.add_clause({t, -acc, b});
      f.add_clause({t, acc, -b});
      acc = t;
    }
    f.add_clause({x.rhs ? acc : -acc});
  }
  f.xors.clear();
}

}  // namespace assay::count
