// A minimal protobuf writer for tests: builds ONNX ModelProto bytes by hand (field numbers of
// onnx.proto), so that the importer is tested without any protobuf library.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace assay::testing {

class Pb {
 public:
  const std::string& bytes() const { return s_; }

  Pb& varint_field(int field, std::uint64_t v) {
    key(field, 0);
    varint(v);
    return *this;
  }
  Pb& string_field(int field, const std::string& v) {
    key(field, 2);
    varint(v.size());
    s_ += v;
    return *this;
  }
  Pb& message(int field, const Pb& m) { return string_field(field, m.s_); }
  Pb& float_field(int field, float f) {
    key(field, 5);
    char b[4];
    std::memcpy(b, &f, 4);
    s_.append(b, 4);
    return *this;
  }
  Pb& packed_ints(int field, const std::vector<std::int64_t>& v) {
    Pb inner;
    for (const auto x : v) inner.varint(static_cast<std::uint64_t>(x));
    return string_field(field, inner.s_);
  }
  Pb& packed_floats(int field, const std::vector<float>& v) {
    std::string raw(v.size() * 4, '\0');
    if (!v.empty()) std::memcpy(raw.data(), v.data(), raw.size());
    return string_field(field, raw);
  }

 private:
  void key(int field, int wire) { varint((static_cast<std::uint64_t>(field) << 3) | wire); }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      s_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    s_ += static_cast<char>(v);
  }
  std::string s_;
};

inline Pb tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                 const std::vector<float>& values) {
  Pb t;
  t.packed_ints(1, dims).varint_field(2, 1).packed_floats(4, values).string_field(8, name);
  return t;
}

inline Pb int_tensor(const std::string& name, const std::vector<std::int64_t>& values) {
  Pb t;
  t.packed_ints(1, {static_cast<std::int64_t>(values.size())}).varint_field(2, 7);
  t.packed_ints(7, values).string_field(8, name);
  return t;
}

struct Attr {
  std::string name;
  bool is_float = false;
  std::int64_t i = 0;
  float f = 0.0f;
  std::vector<std::int64_t> ints = {};  // an INTS attribute (perm, axes) when not empty
  std::string s = {};                   // a STRING attribute (auto_pad, mode) when not empty
};

/// An INTS attribute (strides, pads, kernel_shape, ...).
inline Attr ints_attr(const std::string& name, const std::vector<std::int64_t>& v) {
  return Attr{name, false, 0, 0.0f, v};
}
/// A STRING attribute.
inline Attr string_attr(const std::string& name, const std::string& v) {
  return Attr{name, false, 0, 0.0f, {}, v};
}

/// A tensor of any data type from its little-endian bytes (raw_data), e.g. bool or float16.
inline Pb raw_tensor(const std::string& name, const std::vector<std::int64_t>& dims, int type,
                     const std::string& raw) {
  Pb t;
  t.packed_ints(1, dims).varint_field(2, static_cast<std::uint64_t>(type));
  t.string_field(8, name).string_field(9, raw);
  return t;
}

inline Pb node(const std::string& op, const std::vector<std::string>& in, const std::string& out,
               const std::string& name = "", const std::vector<Attr>& attrs = {}) {
  Pb n;
  for (const auto& i : in) n.string_field(1, i);
  n.string_field(2, out);
  n.string_field(3, name.empty() ? out : name);
  n.string_field(4, op);
  for (const auto& a : attrs) {
    Pb p;
    p.string_field(1, a.name);
    if (!a.s.empty()) {
      p.string_field(4, a.s).varint_field(20, 3);
    } else if (!a.ints.empty()) {
      p.packed_ints(8, a.ints).varint_field(20, 7);
    } else if (a.is_float) {
      p.float_field(2, a.f).varint_field(20, 1);
    } else {
      p.varint_field(3, static_cast<std::uint64_t>(a.i)).varint_field(20, 2);
    }
    n.message(5, p);
  }
  return n;
}

/// A float tensor value info; a negative dimension is written as dim_param "N".
inline Pb value_info(const std::string& name, const std::vector<std::int64_t>& dims) {
  Pb shape;
  for (const auto d : dims) {
    Pb dim;
    if (d >= 0) {
      dim.varint_field(1, static_cast<std::uint64_t>(d));
    } else {
      dim.string_field(2, "N");
    }
    shape.message(1, dim);
  }
  Pb tensor_type;
  tensor_type.varint_field(1, 1).message(2, shape);
  Pb type;
  type.message(1, tensor_type);
  Pb v;
  v.string_field(1, name).message(2, type);
  return v;
}

inline std::string model(const std::vector<Pb>& nodes, const std::vector<Pb>& inits,
                         const Pb& input, const Pb& output) {
  Pb g;
  for (const auto& n : nodes) g.message(1, n);
  g.string_field(2, "test");
  for (const auto& t : inits) g.message(5, t);
  g.message(11, input).message(12, output);
  Pb opset;
  opset.string_field(1, "").varint_field(2, 13);
  Pb m;
  m.varint_field(1, 8).string_field(2, "assay-test").message(7, g).message(8, opset);
  return m.bytes();
}

}  // namespace assay::testing
