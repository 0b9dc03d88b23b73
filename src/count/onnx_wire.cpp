#include "onnx_wire.hpp"

#include <cmath>
#include <cstring>

#include "assay/core/error.hpp"

namespace assay::count::onnx {

std::size_t Tensor::size() const {
  std::size_t n = 1;
  for (const auto d : dims) n *= static_cast<std::size_t>(d < 0 ? 0 : d);
  return n;
}

const Attribute* Node::attribute(std::string_view n) const {
  for (const auto& a : attributes) {
    if (a.name == n) return &a;
  }
  return nullptr;
}

namespace {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

// A cursor over one message's bytes. `base` is the offset of the first byte in the whole file.
class Reader {
 public:
  Reader(std::string_view bytes, std::size_t base, const std::string& where)
      : data_(bytes), base_(base), where_(where) {}

  bool done() const { return pos_ >= data_.size(); }
  std::size_t offset() const { return base_ + pos_; }

  [[noreturn]] void bad(const std::string& what) const {
    fail("{}: byte {}: {}", where_, offset(), what);
  }

  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= data_.size()) bad("truncated varint (the file is cut short or not ONNX)");
      const auto b = static_cast<std::uint8_t>(data_[pos_++]);
      if (shift == 63 && (b & 0x7e) != 0) bad("varint longer than 64 bits");
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    bad("varint longer than 10 bytes");
  }

  // Reads a field key; returns false at the end of the message.
  bool key(std::uint32_t& field, std::uint32_t& wire) {
    if (done()) return false;
    const std::uint64_t k = varint();
    field = static_cast<std::uint32_t>(k >> 3);
    wire = static_cast<std::uint32_t>(k & 7);
    if (field == 0) bad("field number 0 (the file is not ONNX)");
    return true;
  }

  std::string_view bytes() {
    const std::uint64_t n = varint();
    if (n > data_.size() - pos_) {
      bad(fmt::format("a field of {} bytes runs past the end of its message ({} bytes left)", n,
                      data_.size() - pos_));
    }
    const std::string_view s = data_.substr(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return s;
  }

  // A length-delimited sub-message: a reader over its bytes with the right file offsets.
  Reader message() {
    const std::string_view s = bytes();
    return Reader(s, base_ + static_cast<std::size_t>(s.data() - data_.data()), where_);
  }

  std::uint32_t fixed32() {
    if (data_.size() - pos_ < 4) bad("truncated 32-bit field");
    std::uint32_t v;
    std::memcpy(&v, data_.data() + pos_, 4);
    pos_ += 4;
    return v;
  }
  std::uint64_t fixed64() {
    if (data_.size() - pos_ < 8) bad("truncated 64-bit field");
    std::uint64_t v;
    std::memcpy(&v, data_.data() + pos_, 8);
    pos_ += 8;
    return v;
  }

  void skip(std::uint32_t wire) {
    switch (wire) {
      case kVarint:
        varint();
        return;
      case kFixed64:
        fixed64();
        return;
      case kBytes:
        bytes();
        return;
      case kFixed32:
        fixed32();
        return;
      default:
        bad(fmt::format("unsupported wire type {} (groups are not used by ONNX)", wire));
    }
  }

  void expect(std::uint32_t wire, std::uint32_t want, const char* what) {
    if (wire != want) bad(fmt::format("{}: wire type {}, expected {}", what, wire, want));
  }

  std::string string(std::uint32_t wire, const char* what) {
    expect(wire, kBytes, what);
    return std::string(bytes());
  }

  std::int64_t int64(std::uint32_t wire, const char* what) {
    expect(wire, kVarint, what);
    return static_cast<std::int64_t>(varint());
  }

  // A repeated varint field, packed or not.
  void ints(std::uint32_t wire, std::vector<std::int64_t>& out, const char* what) {
    if (wire == kVarint) {
      out.push_back(static_cast<std::int64_t>(varint()));
      return;
    }
    expect(wire, kBytes, what);
    Reader r = message();
    while (!r.done()) out.push_back(static_cast<std::int64_t>(r.varint()));
  }

  // A repeated float (fixed32) field, packed or not.
  void floats(std::uint32_t wire, std::vector<float>& out, const char* what) {
    auto one = [](std::uint32_t bits) {
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    };
    if (wire == kFixed32) {
      out.push_back(one(fixed32()));
      return;
    }
    expect(wire, kBytes, what);
    Reader r = message();
    while (!r.done()) out.push_back(one(r.fixed32()));
  }

  void doubles(std::uint32_t wire, std::vector<double>& out, const char* what) {
    auto one = [](std::uint64_t bits) {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    };
    if (wire == kFixed64) {
      out.push_back(one(fixed64()));
      return;
    }
    expect(wire, kBytes, what);
    Reader r = message();
    while (!r.done()) out.push_back(one(r.fixed64()));
  }

 private:
  std::string_view data_;
  std::size_t base_;
  std::size_t pos_ = 0;
  const std::string& where_;
};

// An IEEE half-precision value (float16 weights, as model.half() exports them), exactly.
double half_to_double(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v = exponent == 0    ? std::ldexp(mantissa, -24)
             : exponent == 31 ? (mantissa ? std::nan("") : HUGE_VAL)
                              : std::ldexp(mantissa + 1024, exponent - 25);
  return (h & 0x8000) ? -v : v;
}

// Bytes per element of the numeric types exporters write (bool, small integers and float16
// appear as Dropout's training_mode, masks and half-precision weights); 0 for the others.
std::size_t element_width(std::int32_t type) {
  switch (type) {
    case 2:  // uint8
    case 3:  // int8
    case 9:  // bool
      return 1;
    case 4:   // uint16
    case 5:   // int16
    case 10:  // float16
      return 2;
    case kFloat:
    case kInt32:
    case 12:  // uint32
      return 4;
    case kDouble:
    case kInt64:
    case 13:  // uint64
      return 8;
    default:
      return 0;
  }
}

// The element at p of a small type (element_width 1 or 2, or uint32/uint64).
double small_element(std::int32_t type, const char* p) {
  std::uint16_t u16 = 0;
  if (element_width(type) >= 2) std::memcpy(&u16, p, 2);
  switch (type) {
    case 2:
    case 9:
      return static_cast<unsigned char>(*p);
    case 3:
      return static_cast<signed char>(*p);
    case 4:
      return u16;
    case 5:
      return static_cast<std::int16_t>(u16);
    case 10:
      return half_to_double(u16);
    case 12: {
      std::uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      std::uint64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
  }
}

// raw_data: little-endian elements of the tensor's type.
void decode_raw(const Reader& r, std::string_view raw, Tensor& t) {
  const std::size_t width = element_width(t.data_type);
  if (width == 0) {
    r.bad(
        fmt::format("tensor \"{}\": data type {} is not supported (float, double, float16, "
                    "bool or an integer type)",
                    t.name, t.data_type));
  }
  if (raw.size() % width != 0) {
    r.bad(fmt::format("tensor \"{}\": raw_data has {} bytes, not a multiple of {}", t.name,
                      raw.size(), width));
  }
  const std::size_t n = raw.size() / width;
  t.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* p = raw.data() + i * width;
    switch (t.data_type) {
      case kFloat: {
        float f;
        std::memcpy(&f, p, 4);
        t.values[i] = f;
        break;
      }
      case kInt32: {
        std::int32_t v;
        std::memcpy(&v, p, 4);
        t.values[i] = v;
        break;
      }
      case kDouble:
        std::memcpy(&t.values[i], p, 8);
        break;
      case kInt64: {
        std::int64_t v;
        std::memcpy(&v, p, 8);
        t.values[i] = static_cast<double>(v);
        break;
      }
      default:
        t.values[i] = small_element(t.data_type, p);
        break;
    }
  }
}

Tensor decode_tensor(Reader r) {
  Tensor t;
  t.offset = r.offset();
  std::vector<float> f;
  std::vector<double> d;
  std::vector<std::int64_t> i32, i64;
  std::string_view raw;
  bool has_raw = false;
  std::uint32_t field, wire;
  while (r.key(field, wire)) {
    switch (field) {
      case 1:
        r.ints(wire, t.dims, "TensorProto.dims");
        break;
      case 2:
        t.data_type = static_cast<std::int32_t>(r.int64(wire, "TensorProto.data_type"));
        break;
      case 4:
        r.floats(wire, f, "TensorProto.float_data");
        break;
      case 5:
        r.ints(wire, i32, "TensorProto.int32_data");
        break;
      case 7:
        r.ints(wire, i64, "TensorProto.int64_data");
        break;
      case 8:
        t.name = r.string(wire, "TensorProto.name");
        break;
      case 9:
        r.expect(wire, kBytes, "TensorProto.raw_data");
        raw = r.bytes();
        has_raw = true;
        break;
      case 10:
        r.doubles(wire, d, "TensorProto.double_data");
        break;
      case 14:
        t.external = r.int64(wire, "TensorProto.data_location") == 1;
        break;
      default:
        r.skip(wire);
    }
  }
  if (has_raw) {
    decode_raw(r, raw, t);
  } else if (!f.empty()) {
    t.values.assign(f.begin(), f.end());
  } else if (!d.empty()) {
    t.values = std::move(d);
  } else if (!i64.empty()) {
    for (const auto v : i64) t.values.push_back(static_cast<double>(v));
  } else if (!i32.empty()) {
    for (const auto v : i32) {
      // int32_data holds float16 values as their bits (and bool, int8, ... as values).
      t.values.push_back(t.data_type == 10 ? half_to_double(static_cast<std::uint16_t>(v))
                                           : static_cast<double>(static_cast<std::int32_t>(v)));
    }
  }
  return t;
}

Attribute decode_attribute(Reader r) {
  Attribute a;
  std::uint32_t field, wire;
  while (r.key(field, wire)) {
    switch (field) {
      case 1:
        a.name = r.string(wire, "AttributeProto.name");
        break;
      case 2: {
        r.expect(wire, kFixed32, "AttributeProto.f");
        const std::uint32_t bits = r.fixed32();
        std::memcpy(&a.f, &bits, 4);
        break;
      }
      case 3:
        a.i = r.int64(wire, "AttributeProto.i");
        break;
      case 4:
        a.s = r.string(wire, "AttributeProto.s");
        break;
      case 5:
        r.expect(wire, kBytes, "AttributeProto.t");
        a.t = decode_tensor(r.message());
        a.has_t = true;
        break;
      case 7:
        r.floats(wire, a.floats, "AttributeProto.floats");
        break;
      case 8:
        r.ints(wire, a.ints, "AttributeProto.ints");
        break;
      case 20:
        a.type = static_cast<std::int32_t>(r.int64(wire, "AttributeProto.type"));
        break;
      default:
        r.skip(wire);
    }
  }
  return a;
}

Node decode_node(Reader r) {
  Node n;
  n.offset = r.offset();
  std::uint32_t field, wire;
  while (r.key(field, wire)) {
    switch (field) {
      case 1:
        n.inputs.push_back(r.string(wire, "NodeProto.input"));
        break;
      case 2:
        n.outputs.push_back(r.string(wire, "NodeProto.output"));
        break;
      case 3:
        n.name = r.string(wire, "NodeProto.name");
        break;
      case 4:
        n.op_type = r.string(wire, "NodeProto.op_type");
        break;
      case 5:
        r.expect(wire, kBytes, "NodeProto.attribute");
        n.attributes.push_back(decode_attribute(r.message()));
        break;
      case 7:
        n.domain = r.string(wire, "NodeProto.domain");
        break;
      default:
        r.skip(wire);
    }
  }
  return n;
}

void decode_shape(Reader r, ValueInfo& v) {
  v.has_shape = true;
  std::uint32_t field, wire;
  while (r.key(field, wire)) {
    if (field != 1) {
      r.skip(wire);
      continue;
    }
    r.expect(wire, kBytes, "TensorShapeProto.dim");
    Reader d = r.message();
    std::int64_t value = -1;
    std::string param;
    std::uint32_t f2, w2;
    while (d.key(f2, w2)) {
      if (f2 == 1) {
        value = d.int64(w2, "Dimension.dim_value");
      } else if (f2 == 2) {
        param = d.string(w2, "Dimension.dim_param");
      } else {
        d.skip(w2);
      }
    }
    if (value < 0 && param.empty()) param.push_back('?');
    v.dims.push_back(param.empty() ? value : -1);
    v.dim_params.push_back(param);
  }
}

ValueInfo decode_value_info(Reader r) {
  ValueInfo v;
  std::uint32_t field, wire;
  while (r.key(field, wire)) {
    if (field == 1) {
      v.name = r.string(wire, "ValueInfoProto.name");
    } else if (field == 2) {
      r.expect(wire, kBytes, "ValueInfoProto.type");
      Reader type = r.message();
      std::uint32_t f2, w2;
      while (type.key(f2, w2)) {
        if (f2 != 1) {  // tensor_type; sequences and maps are not tensors
          type.skip(w2);
          continue;
        }
        type.expect(w2, kBytes, "TypeProto.tensor_type");
        Reader tensor = type.message();
        std::uint32_t f3, w3;
        while (tensor.key(f3, w3)) {
          if (f3 == 1) {
            v.elem_type = static_cast<std::int32_t>(tensor.int64(w3, "Tensor.elem_type"));
          } else if (f3 == 2) {
            tensor.expect(w3, kBytes, "Tensor.shape");
            decode_shape(tensor.message(), v);
          } else {
            tensor.skip(w3);
          }
        }
      }
    } else {
      r.skip(wire);
    }
  }
  return v;
}

Graph decode_graph(Reader r) {
  Graph g;
  std::uint32_t field, wire;
  while (r.key(field, wire)) {
    switch (field) {
      case 1:
        r.expect(wire, kBytes, "GraphProto.node");
        g.nodes.push_back(decode_node(r.message()));
        break;
      case 5:
        r.expect(wire, kBytes, "GraphProto.initializer");
        g.initializers.push_back(decode_tensor(r.message()));
        break;
      case 11:
        r.expect(wire, kBytes, "GraphProto.input");
        g.inputs.push_back(decode_value_info(r.message()));
        break;
      case 12:
        r.expect(wire, kBytes, "GraphProto.output");
        g.outputs.push_back(decode_value_info(r.message()));
        break;
      default:
        r.skip(wire);
    }
  }
  return g;
}

}  // namespace

ModelProto decode_model(std::string_view bytes, const std::string& where) {
  ModelProto m;
  Reader r(bytes, 0, where);
  if (bytes.empty()) fail("{}: empty file (expected an ONNX model)", where);
  std::uint32_t field, wire;
  while (r.key(field, wire)) {
    switch (field) {
      case 1:
        m.ir_version = r.int64(wire, "ModelProto.ir_version");
        break;
      case 2:
        m.producer = r.string(wire, "ModelProto.producer_name");
        break;
      case 7:
        r.expect(wire, kBytes, "ModelProto.graph");
        m.graph = decode_graph(r.message());
        m.has_graph = true;
        break;
      case 8: {
        r.expect(wire, kBytes, "ModelProto.opset_import");
        Reader o = r.message();
        std::string domain;
        std::int64_t version = 0;
        std::uint32_t f2, w2;
        while (o.key(f2, w2)) {
          if (f2 == 1) {
            domain = o.string(w2, "OperatorSetIdProto.domain");
          } else if (f2 == 2) {
            version = o.int64(w2, "OperatorSetIdProto.version");
          } else {
            o.skip(w2);
          }
        }
        if (domain.empty() || domain == "ai.onnx") m.opset = version;
        break;
      }
      default:
        r.skip(wire);
    }
  }
  if (!m.has_graph) fail("{}: no graph found (expected an ONNX ModelProto)", where);
  return m;
}

}  // namespace assay::count::onnx
