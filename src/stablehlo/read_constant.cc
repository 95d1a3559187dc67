// The StableHLO reader's types and dense values: tensor types to seam shapes, dense<...>
// (decimal, hex bit patterns, the hex blob dense<"0x...">) to literals, integer lists.
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/ir/bf16.h"
#include "src/stablehlo/read_convert.h"

namespace seam::stablehlo::convert {
namespace {

using syntax::DenseValue;
using syntax::ErrorAt;
using syntax::Quote;
using syntax::Tok;

// Hex digits after "0x" as an unsigned value of at most `bits` bits.
bool HexBits(std::string_view text, int bits, uint64_t* out) {
  if (!text.empty() && text[0] == '-') return false;
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return false;
  text.remove_prefix(2);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out, 16);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  return bits == 64 || *out < (uint64_t{1} << bits);
}

absl::Status FloatElement(ir::DType dtype, const DenseValue& v, uint8_t* out) {
  const int bits = dtype == ir::DType::kF64 ? 64 : (dtype == ir::DType::kF32 ? 32 : 16);
  uint64_t pattern = 0;
  if (v.kind == Tok::kInt && v.text.size() > 2 && (v.text[1] == 'x' || v.text[1] == 'X')) {
    if (!HexBits(v.text, bits, &pattern)) {
      return ErrorAt(v.pos, Cat("hex value ", Quote(v.text), " is not a ", bits, "-bit pattern"));
    }
    std::memcpy(out, &pattern, bits / 8);  // little-endian host
    return absl::OkStatus();
  }
  if (v.kind != Tok::kInt && v.kind != Tok::kFloat) {
    return ErrorAt(v.pos, Cat("expected a float value, found ", Quote(v.text)));
  }
  std::string_view text = v.text;
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  double x = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (end != text.data() + text.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return ErrorAt(v.pos, Cat("expected a float value, found ", Quote(v.text)));
  }
  if (ec == std::errc::result_out_of_range && std::fabs(x) > 1) {
    return ErrorAt(v.pos, Cat("value ", Quote(v.text), " is out of range"));
  }
  if (dtype == ir::DType::kF64) {
    std::memcpy(out, &x, 8);
    return absl::OkStatus();
  }
  if (std::fabs(x) > static_cast<double>(std::numeric_limits<float>::max()) * 1.0000001) {
    return ErrorAt(v.pos, Cat(std::string(ir::DTypeName(dtype)), " value ", Quote(v.text),
                              " is out of range"));
  }
  const auto f = static_cast<float>(x);
  if (dtype == ir::DType::kF32) {
    std::memcpy(out, &f, 4);
    return absl::OkStatus();
  }
  const uint16_t b = ir::FloatToBF16(f);
  if (std::isinf(ir::BF16ToFloat(b)) && !std::isinf(f)) {
    return ErrorAt(v.pos, Cat("bf16 value ", Quote(v.text), " is out of range"));
  }
  std::memcpy(out, &b, 2);
  return absl::OkStatus();
}

absl::Status IntElement(ir::DType dtype, const DenseValue& v, uint8_t* out) {
  if (dtype == ir::DType::kPred) {
    bool ok = v.kind == Tok::kIdent || v.text == "0" || v.text == "1";
    if (!ok) return ErrorAt(v.pos, Cat("expected true or false, found ", Quote(v.text)));
    *out = (v.text == "true" || v.text == "1") ? 1 : 0;
    return absl::OkStatus();
  }
  const bool wide = dtype == ir::DType::kS64;
  if (v.kind != Tok::kInt) {
    return ErrorAt(v.pos, Cat("expected an integer, found ", Quote(v.text)));
  }
  uint64_t pattern = 0;
  int64_t value = 0;
  if (HexBits(v.text, wide ? 64 : 32, &pattern)) {
    value =
        wide ? static_cast<int64_t>(pattern) : static_cast<int32_t>(static_cast<uint32_t>(pattern));
  } else {
    std::string_view text = v.text;
    if (!text.empty() && text[0] == '+') text.remove_prefix(1);
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    const bool fits = wide || (value >= std::numeric_limits<int32_t>::min() &&
                               value <= std::numeric_limits<int32_t>::max());
    if (ec != std::errc() || end != text.data() + text.size() || !fits) {
      return ErrorAt(v.pos,
                     Cat("integer ", Quote(v.text), " is out of range for ", wide ? "i64" : "i32"));
    }
  }
  if (wide) {
    std::memcpy(out, &value, 8);
  } else {
    const auto narrow = static_cast<int32_t>(value);
    std::memcpy(out, &narrow, 4);
  }
  return absl::OkStatus();
}

absl::Status BlobLiteral(const Attr& attr, ir::Literal* lit) {
  std::string_view hex = attr.blob;
  if (hex.size() < 2 || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X') || hex.size() % 2 != 0) {
    return ErrorAt(attr.pos, "a dense hex blob is \"0x\" followed by pairs of hex digits");
  }
  hex.remove_prefix(2);
  const size_t bytes = hex.size() / 2;
  const size_t element = ir::DTypeSize(lit->shape.dtype);
  const bool splat = bytes == element && lit->bytes.size() != element;
  if (bytes != lit->bytes.size() && !splat) {
    return ErrorAt(attr.pos, Cat("dense hex blob has ", bytes, " bytes, type ",
                                 attr.type.ToString(), " needs ", lit->bytes.size()));
  }
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i) {
    unsigned byte = 0;
    auto [end, ec] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, byte, 16);
    if (ec != std::errc() || end != hex.data() + 2 * i + 2) {
      return ErrorAt(attr.pos, "dense hex blob has a character that is not a hex digit");
    }
    data[i] = static_cast<uint8_t>(byte);
  }
  for (size_t off = 0; off < lit->bytes.size(); off += bytes) {
    std::memcpy(lit->bytes.data() + off, data.data(), bytes);
  }
  if (lit->shape.dtype == ir::DType::kPred) {
    for (uint8_t& b : lit->bytes) b = b != 0 ? 1 : 0;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ir::Shape> ShapeOf(const Type& type) {
  ir::Shape shape;
  shape.dims.assign(type.dims.begin(), type.dims.end());
  static const struct {
    const char* name;
    ir::DType dtype;
  } kTypes[] = {{"f32", ir::DType::kF32}, {"f64", ir::DType::kF64}, {"bf16", ir::DType::kBF16},
                {"i32", ir::DType::kS32}, {"i64", ir::DType::kS64}, {"i1", ir::DType::kPred}};
  bool found = false;
  for (const auto& t : kTypes) {
    if (type.element == t.name) {
      shape.dtype = t.dtype;
      found = true;
    }
  }
  if (!found) {
    return ErrorAt(type.pos,
                   Cat("unsupported element type ", Quote(type.element), " in ",
                       Quote(type.ToString()), " (seam reads f32, f64, bf16, i1, i32, i64)"));
  }
  if (absl::Status s = ir::ValidateShape(shape); !s.ok()) {
    return ErrorAt(type.pos, Cat(Quote(type.ToString()), ": ", s.message()));
  }
  return shape;
}

absl::StatusOr<ir::Literal> DenseLiteral(const Attr& attr, const ir::Shape& shape) {
  if (attr.kind != Attr::kDense) return ErrorAt(attr.pos, "expected a dense<...> value");
  if (static_cast<int64_t>(shape.byte_size()) > syntax::kMaxConstantBytes) {
    return ErrorAt(attr.pos,
                   Cat("constant of ", shape.byte_size(),
                       " bytes is larger than the reader's limit of ", syntax::kMaxConstantBytes));
  }
  ir::Literal lit;
  lit.shape = shape;
  const int64_t n = shape.num_elements();
  const auto count = static_cast<int64_t>(attr.values.size());
  if (!attr.has_blob && !(count == n || (attr.splat && count == 1))) {
    return ErrorAt(attr.pos, Cat("dense value has ", count, " elements, type ",
                                 attr.type.ToString(), " needs ", n));
  }
  lit.bytes.resize(shape.byte_size());
  if (attr.has_blob) {
    SEAM_RETURN_IF_ERROR(BlobLiteral(attr, &lit));
    return lit;
  }
  const size_t size = ir::DTypeSize(shape.dtype);
  for (int64_t i = 0; i < count; ++i) {
    uint8_t* out = lit.bytes.data() + i * size;
    if (ir::IsFloat(shape.dtype)) {
      SEAM_RETURN_IF_ERROR(FloatElement(shape.dtype, attr.values[i], out));
    } else {
      SEAM_RETURN_IF_ERROR(IntElement(shape.dtype, attr.values[i], out));
    }
  }
  if (count == 1 && n > 1) {
    for (int64_t i = 1; i < n; ++i)
      std::memcpy(lit.bytes.data() + i * size, lit.bytes.data(), size);
  }
  return lit;
}

absl::StatusOr<std::vector<int64_t>> IntsOf(const Attr& attr, std::string_view what) {
  std::vector<int64_t> out;
  if (attr.kind == Attr::kArray) return attr.ints;
  if (attr.kind == Attr::kList) {
    for (const Attr& item : attr.items) {
      if (item.kind != Attr::kInt) {
        return ErrorAt(item.pos, Cat(what, ": expected a list of integers"));
      }
      out.push_back(item.i);
    }
    return out;
  }
  if (attr.kind == Attr::kDense && !attr.has_blob) {
    for (const DenseValue& t : attr.values) {
      ir::Shape one{ir::DType::kS64, {}};
      uint8_t bytes[8];
      SEAM_RETURN_IF_ERROR(IntElement(one.dtype, t, bytes));
      int64_t v = 0;
      std::memcpy(&v, bytes, 8);
      out.push_back(v);
    }
    return out;
  }
  return ErrorAt(attr.pos, Cat(what, ": expected array<i64: ...>"));
}

absl::Status PaddingOf(const Attr& attr, int64_t rank, std::vector<int64_t>* low,
                       std::vector<int64_t>* high) {
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> flat, IntsOf(attr, "padding"));
  if (static_cast<int64_t>(flat.size()) != 2 * rank) {
    return ErrorAt(attr.pos, Cat("padding has ", flat.size(), " values, expected ", rank,
                                 " pairs [low, high]"));
  }
  low->clear();
  high->clear();
  for (int64_t i = 0; i < rank; ++i) {
    low->push_back(flat[2 * i]);
    high->push_back(flat[2 * i + 1]);
  }
  return absl::OkStatus();
}

}  // namespace seam::stablehlo::convert
