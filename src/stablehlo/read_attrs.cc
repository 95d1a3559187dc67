// The StableHLO reader's attributes: integers, floats, arrays, dense constants, lists,
// dictionaries and the dialect's angled attributes (#stablehlo<...>, #stablehlo.dot<...>,
// #stablehlo.conv<...>).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/stablehlo/read_parser.h"

namespace seam::stablehlo::syntax {

absl::Status Parser::ParseAttrDict(AttrMap* attrs) {
  SEAM_RETURN_IF_ERROR(Expect('{', "to open the attributes"));
  while (!AtPunct('}')) {
    if (tok_.kind != Tok::kIdent && tok_.kind != Tok::kString) {
      return Unexpected("an attribute name");
    }
    const std::string_view name = tok_.text;
    Pos pos = tok_.pos;
    SEAM_RETURN_IF_ERROR(Advance());
    Attr value;
    value.pos = pos;
    if (AtPunct('=')) {
      SEAM_RETURN_IF_ERROR(Advance());
      SEAM_ASSIGN_OR_RETURN(value, ParseAttrValue());
    }
    value.pos = pos;
    if (attrs->size() >= 256) return ErrorAt(pos, "too many attributes");
    (*attrs)[name] = std::move(value);
    if (!AtPunct(',')) break;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  return Expect('}', "to close the attributes");
}

absl::StatusOr<Attr> Parser::ParseAttrValue() {
  if (attr_depth_ >= kMaxNesting) {
    return ErrorAt(tok_.pos, Cat("attribute values nested deeper than ", kMaxNesting));
  }
  ++attr_depth_;
  absl::StatusOr<Attr> attr = ParseAttrValueInner();
  --attr_depth_;
  return attr;
}

absl::StatusOr<Attr> Parser::ParseAttrValueInner() {
  Attr attr;
  attr.pos = tok_.pos;
  if (tok_.kind == Tok::kInt) {
    attr.kind = Attr::kInt;
    SEAM_ASSIGN_OR_RETURN(attr.i, ParseInt("an integer"));
  } else if (tok_.kind == Tok::kFloat) {
    attr.kind = Attr::kFloat;
    attr.text = tok_.text;
    SEAM_RETURN_IF_ERROR(Advance());
  } else if (AtIdent("true") || AtIdent("false")) {
    attr.kind = Attr::kBool;
    attr.i = AtIdent("true") ? 1 : 0;
    SEAM_RETURN_IF_ERROR(Advance());
    return attr;
  } else if (tok_.kind == Tok::kString) {
    attr.kind = Attr::kString;
    attr.text = tok_.text;
    SEAM_RETURN_IF_ERROR(Advance());
    return attr;
  } else if (tok_.kind == Tok::kAngled) {
    return ParseAngledAttr();
  } else if (AtPunct('[')) {
    attr.kind = Attr::kList;
    SEAM_RETURN_IF_ERROR(Advance());
    while (!AtPunct(']')) {
      if (attr.items.size() >= 4096) return ErrorAt(tok_.pos, "list is too long");
      SEAM_ASSIGN_OR_RETURN(Attr item, ParseAttrValue());
      attr.items.push_back(std::move(item));
      if (!AtPunct(',')) break;
      SEAM_RETURN_IF_ERROR(Advance());
    }
    SEAM_RETURN_IF_ERROR(Expect(']', "to close the list"));
    return attr;
  } else if (AtPunct('{')) {
    attr.kind = Attr::kStruct;
    SEAM_RETURN_IF_ERROR(ParseAttrDict(&attr.fields));
    return attr;
  } else if (tok_.kind == Tok::kIdent) {
    attr.kind = Attr::kWord;
    attr.word = tok_.text;
    SEAM_RETURN_IF_ERROR(Advance());
    return attr;
  } else {
    return Unexpected("an attribute value");
  }
  // `3 : i64`, `1.0 : f32`: the type of a number is not needed.
  if (AtPunct(':')) {
    SEAM_RETURN_IF_ERROR(Advance());
    if (tok_.kind != Tok::kIdent) return Unexpected("the type of a number (i64, i32, f32)");
    SEAM_RETURN_IF_ERROR(Advance());
  }
  return attr;
}

absl::Status Parser::ParseDense(Attr* attr) {
  attr->kind = Attr::kDense;
  Parser inner(tok_.inner, tok_.inner_pos, strings_);
  SEAM_RETURN_IF_ERROR(inner.Start());
  if (inner.tok_.kind == Tok::kString) {
    attr->has_blob = true;
    attr->blob = inner.tok_.text;
    SEAM_RETURN_IF_ERROR(inner.Advance());
  } else if (!inner.AtEnd()) {
    attr->splat = !inner.AtPunct('[');
    int depth = 0;
    while (!inner.AtEnd()) {
      const Token& t = inner.tok_;
      if (inner.AtPunct('[')) {
        if (++depth > 64) return ErrorAt(t.pos, "dense value nested too deeply");
      } else if (inner.AtPunct(']')) {
        if (--depth < 0) return ErrorAt(t.pos, "unbalanced ']' in a dense value");
      } else if (t.kind == Tok::kInt || t.kind == Tok::kFloat ||
                 (t.kind == Tok::kIdent && (t.text == "true" || t.text == "false"))) {
        if (static_cast<int64_t>(attr->values.size()) >= kMaxConstantBytes) {
          return ErrorAt(t.pos, "dense value has too many elements");
        }
        attr->values.push_back(DenseValue{t.kind, t.text, t.pos});
      } else if (!inner.AtPunct(',')) {
        return ErrorAt(t.pos, Cat("unsupported dense value ", Quote(t.text)));
      }
      SEAM_RETURN_IF_ERROR(inner.Advance());
    }
    if (depth != 0) return ErrorAt(attr->pos, "unbalanced '[' in a dense value");
  }
  if (!inner.AtEnd()) return inner.Unexpected("the end of the dense value");
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_RETURN_IF_ERROR(Expect(':', "before the dense value's type"));
  SEAM_ASSIGN_OR_RETURN(attr->type, ParseType());
  return absl::OkStatus();
}

// k = v, ... inside #stablehlo.dot<...> and friends.
absl::Status Parser::ParseStructFields(Attr* attr) {
  while (!AtEnd()) {
    if (tok_.kind != Tok::kIdent) return Unexpected("a field name");
    const std::string_view name = tok_.text;
    Pos pos = tok_.pos;
    SEAM_RETURN_IF_ERROR(Advance());
    SEAM_RETURN_IF_ERROR(Expect('=', "after a field name"));
    SEAM_ASSIGN_OR_RETURN(Attr value, ParseAttrValue());
    value.pos = pos;
    if (attr->fields.size() >= 64) return ErrorAt(pos, "too many fields");
    attr->fields[name] = std::move(value);
    if (!AtPunct(',')) break;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  if (!AtEnd()) return Unexpected(Cat("',' or the end of ", Quote(attr->text)));
  return absl::OkStatus();
}

// [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], or `raw` followed by the fields.
absl::Status Parser::ParseConvDims(Attr* attr) {
  if (AtIdent("raw")) {
    SEAM_RETURN_IF_ERROR(Advance());
    return ParseStructFields(attr);
  }
  static const char* const kPart[3] = {"input", "kernel", "output"};
  static const char* const kFirst[3] = {"b", "i", "b"};
  static const char* const kSecond[3] = {"f", "o", "f"};
  // The fields each layout fills: first, second and spatial dimensions.
  static constexpr std::string_view kField[3][3] = {
      {"input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions"},
      {"kernel_input_feature_dimension", "kernel_output_feature_dimension",
       "kernel_spatial_dimensions"},
      {"output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions"}};
  for (int part = 0; part < 3; ++part) {
    if (part == 1 && !AtIdent("x")) return Unexpected("'x' between the input and kernel layouts");
    if (part == 1) SEAM_RETURN_IF_ERROR(Advance());
    if (part == 2 && tok_.kind != Tok::kArrow) return Unexpected("'->' before the output layout");
    if (part == 2) SEAM_RETURN_IF_ERROR(Advance());
    SEAM_RETURN_IF_ERROR(Expect('[', "to open a convolution layout"));
    Attr first, second, spatial;
    first.kind = second.kind = Attr::kInt;
    first.i = second.i = -1;
    spatial.kind = Attr::kList;
    std::vector<int64_t> spatial_at;  // spatial index -> dimension
    for (int64_t dim = 0; !AtPunct(']'); ++dim) {
      if (dim >= 64) return ErrorAt(tok_.pos, "convolution layout is too long");
      if (AtIdent(kFirst[part]) && first.i < 0) {
        first.i = dim;
      } else if (AtIdent(kSecond[part]) && second.i < 0) {
        second.i = dim;
      } else if (tok_.kind == Tok::kInt) {
        SEAM_ASSIGN_OR_RETURN(int64_t s, ParseInt("a spatial dimension"));
        if (s < 0 || s >= 64) return ErrorAt(prev_.pos, "spatial dimension out of range");
        if (spatial_at.size() <= static_cast<size_t>(s)) spatial_at.resize(s + 1, -1);
        if (spatial_at[s] >= 0) return ErrorAt(prev_.pos, "spatial dimension repeats");
        spatial_at[s] = dim;
        if (!AtPunct(',')) break;
        SEAM_RETURN_IF_ERROR(Advance());
        continue;
      } else {
        return Unexpected(Cat("'", kFirst[part], "', '", kSecond[part],
                              "' or a spatial index in the ", kPart[part], " layout"));
      }
      SEAM_RETURN_IF_ERROR(Advance());
      if (!AtPunct(',')) break;
      SEAM_RETURN_IF_ERROR(Advance());
    }
    SEAM_RETURN_IF_ERROR(Expect(']', "to close a convolution layout"));
    for (int64_t d : spatial_at) {
      if (d < 0) return ErrorAt(prev_.pos, "a spatial index is missing from the layout");
      Attr item;
      item.kind = Attr::kInt;
      item.i = d;
      spatial.items.push_back(item);
    }
    attr->fields[kField[part][0]] = first;
    attr->fields[kField[part][1]] = second;
    attr->fields[kField[part][2]] = std::move(spatial);
  }
  if (!AtEnd()) return Unexpected("the end of the convolution layout");
  return absl::OkStatus();
}

absl::StatusOr<Attr> Parser::ParseAngledAttr() {
  Attr attr;
  attr.pos = tok_.pos;
  const std::string_view word = tok_.text;
  if (word == "dense") {
    SEAM_RETURN_IF_ERROR(ParseDense(&attr));
    return attr;
  }
  Parser inner(tok_.inner, tok_.inner_pos, strings_);
  inner.attr_depth_ = attr_depth_;  // nesting continues inside the brackets
  SEAM_RETURN_IF_ERROR(inner.Start());
  if (word == "array") {
    attr.kind = Attr::kArray;
    if (!inner.AtIdent("i64") && !inner.AtIdent("i1")) {
      return inner.Unexpected("'i64' or 'i1' (array element types the reader takes)");
    }
    SEAM_RETURN_IF_ERROR(inner.Advance());
    if (inner.AtPunct(':')) {
      SEAM_RETURN_IF_ERROR(inner.Advance());
      while (!inner.AtEnd()) {
        if (attr.ints.size() >= 4096) return ErrorAt(inner.tok_.pos, "array is too long");
        if (inner.AtIdent("true") || inner.AtIdent("false")) {
          attr.ints.push_back(inner.AtIdent("true") ? 1 : 0);
          SEAM_RETURN_IF_ERROR(inner.Advance());
        } else {
          SEAM_ASSIGN_OR_RETURN(int64_t v, inner.ParseInt("an array element"));
          attr.ints.push_back(v);
        }
        if (!inner.AtPunct(',')) break;
        SEAM_RETURN_IF_ERROR(inner.Advance());
      }
    }
  } else if (word == "#stablehlo") {
    attr.kind = Attr::kEnum;
    if (inner.tok_.kind != Tok::kIdent) return inner.Unexpected("an enum name");
    attr.text = inner.tok_.text;
    SEAM_RETURN_IF_ERROR(inner.Advance());
    if (inner.tok_.kind != Tok::kIdent) return inner.Unexpected("an enum value");
    attr.word = inner.tok_.text;
    SEAM_RETURN_IF_ERROR(inner.Advance());
  } else if (word == "#stablehlo.conv") {
    attr.kind = Attr::kStruct;
    attr.text = word.substr(1);
    SEAM_RETURN_IF_ERROR(inner.ParseConvDims(&attr));
  } else if (word.size() > 11 && word.substr(0, 11) == "#stablehlo.") {
    attr.kind = Attr::kStruct;
    attr.text = word.substr(1);
    SEAM_RETURN_IF_ERROR(inner.ParseStructFields(&attr));
  } else {
    return ErrorAt(tok_.pos, Cat("unknown attribute value ", Quote(Cat(word, "<"))));
  }
  if (!inner.AtEnd()) {
    return inner.Unexpected(Cat("the end of ", Quote(Cat(word, "<...>"))));
  }
  SEAM_RETURN_IF_ERROR(Advance());
  return attr;
}

}  // namespace seam::stablehlo::syntax
