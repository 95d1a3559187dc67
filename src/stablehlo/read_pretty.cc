// The pretty forms the reader takes (docs/stablehlo.md "Op syntax"): return, constant,
// iota, the elementwise ops, compare, broadcast_in_dim, reshape, transpose, convert,
// dot_general and reduce ... applies ... across dimensions. Each fills the same Op as the
// generic form would, attributes under their generic names.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/stablehlo/read_parser.h"

namespace seam::stablehlo::syntax {
namespace {

Attr IntArray(std::vector<int64_t> ints, Pos pos) {
  Attr a;
  a.kind = Attr::kArray;
  a.ints = std::move(ints);
  a.pos = pos;
  return a;
}

Attr IntList(const std::vector<int64_t>& ints, Pos pos) {
  Attr a;
  a.kind = Attr::kList;
  a.pos = pos;
  for (int64_t v : ints) {
    Attr item;
    item.kind = Attr::kInt;
    item.i = v;
    item.pos = pos;
    a.items.push_back(item);
  }
  return a;
}

}  // namespace

absl::Status Parser::ParseReturn(Op* op) {
  while (tok_.kind == Tok::kValue) {
    if (op->operands.size() >= 65536) return ErrorAt(tok_.pos, "too many results");
    SEAM_ASSIGN_OR_RETURN(ValueUse use, ParseValueUse());
    op->operands.push_back(use);
    if (!AtPunct(',')) break;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  if (AtPunct(':')) {
    SEAM_RETURN_IF_ERROR(Advance());
    SEAM_RETURN_IF_ERROR(ParseTypeList(&op->operand_types));
  }
  return SkipLocation();
}

absl::Status Parser::ParsePrettyOperands(Op* op) {
  while (tok_.kind == Tok::kValue) {
    if (op->operands.size() >= 4096) return ErrorAt(tok_.pos, "too many operands");
    SEAM_ASSIGN_OR_RETURN(ValueUse use, ParseValueUse());
    op->operands.push_back(use);
    if (!AtPunct(',')) break;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  return absl::OkStatus();
}

absl::Status Parser::ParsePrettyCompare(Op* op) {
  if (tok_.kind != Tok::kIdent) return Unexpected("a comparison direction (EQ, NE, LT, ...)");
  Attr dir;
  dir.kind = Attr::kEnum;
  dir.text = "comparison_direction";
  dir.word = tok_.text;
  dir.pos = tok_.pos;
  op->attrs["comparison_direction"] = dir;
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_RETURN_IF_ERROR(Expect(',', "after the comparison direction"));
  SEAM_RETURN_IF_ERROR(ParsePrettyOperands(op));
  if (tok_.kind == Tok::kIdent) {
    Attr type;
    type.kind = Attr::kEnum;
    type.text = "comparison_type";
    type.word = tok_.text;
    type.pos = tok_.pos;
    op->attrs["compare_type"] = type;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  return absl::OkStatus();
}

// %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] [, precision = [...]]
absl::Status Parser::ParsePrettyDot(Op* op) {
  SEAM_RETURN_IF_ERROR(ParsePrettyOperands(op));
  Attr dims;
  dims.kind = Attr::kStruct;
  dims.text = "stablehlo.dot";
  dims.pos = tok_.pos;
  while (tok_.kind == Tok::kIdent) {
    const std::string_view key = tok_.text;
    Pos pos = tok_.pos;
    SEAM_RETURN_IF_ERROR(Advance());
    SEAM_RETURN_IF_ERROR(Expect('=', Cat("after ", Quote(key))));
    if (key == "batching_dims" || key == "contracting_dims") {
      SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> lhs, ParseIntList(key));
      SEAM_RETURN_IF_ERROR(ExpectIdent("x", Cat("between the two sides of ", key)));
      SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> rhs, ParseIntList(key));
      const bool batching = key == "batching_dims";
      dims.fields[batching ? "lhs_batching_dimensions" : "lhs_contracting_dimensions"] =
          IntList(lhs, pos);
      dims.fields[batching ? "rhs_batching_dimensions" : "rhs_contracting_dimensions"] =
          IntList(rhs, pos);
    } else if (key == "precision") {
      SEAM_ASSIGN_OR_RETURN(Attr precision, ParseAttrValue());
      precision.pos = pos;
      op->attrs["precision_config"] = precision;
    } else {
      return ErrorAt(pos, Cat("unknown attribute ", Quote(key), " of dot_general"));
    }
    if (!AtPunct(',')) break;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  op->attrs["dot_dimension_numbers"] = dims;
  return absl::OkStatus();
}

// (%x init: %c) applies stablehlo.add across dimensions = [1]
absl::Status Parser::ParsePrettyReduce(Op* op) {
  std::vector<ValueUse> inputs, inits;
  while (AtPunct('(')) {
    SEAM_RETURN_IF_ERROR(Advance());
    SEAM_ASSIGN_OR_RETURN(ValueUse x, ParseValueUse());
    SEAM_RETURN_IF_ERROR(ExpectIdent("init", "in a reduce operand"));
    SEAM_RETURN_IF_ERROR(Expect(':', "after 'init'"));
    SEAM_ASSIGN_OR_RETURN(ValueUse init, ParseValueUse());
    SEAM_RETURN_IF_ERROR(Expect(')', "after the init value"));
    inputs.push_back(x);
    inits.push_back(init);
    if (inputs.size() > 8) return ErrorAt(tok_.pos, "too many reduce operands");
    if (!AtPunct(',')) break;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  if (inputs.empty()) return Unexpected("'(' and a reduce operand");
  op->operands = inputs;
  op->operands.insert(op->operands.end(), inits.begin(), inits.end());
  SEAM_RETURN_IF_ERROR(ExpectIdent("applies", "after the reduce operands"));
  if (tok_.kind != Tok::kIdent) return Unexpected("the op the reduce applies");
  Attr applies;
  applies.kind = Attr::kWord;
  applies.word = tok_.text;
  applies.pos = tok_.pos;
  op->attrs[" applies"] = applies;  // read_convert.cc builds the body from it
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_RETURN_IF_ERROR(ExpectIdent("across", "after the applied op"));
  SEAM_RETURN_IF_ERROR(ExpectIdent("dimensions", "after 'across'"));
  Pos pos = tok_.pos;
  SEAM_RETURN_IF_ERROR(Expect('=', "after 'dimensions'"));
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ParseIntList("the reduced dimensions"));
  op->attrs["dimensions"] = IntArray(std::move(dims), pos);
  return absl::OkStatus();
}

absl::Status Parser::ParsePrettyOp(Op* op) {
  const std::string_view name = op->name;
  if (name == "return" || name == "func.return" || name == "stablehlo.return") {
    return ParseReturn(op);
  }
  if (name == "stablehlo.constant") {
    if (AtPunct('{')) SEAM_RETURN_IF_ERROR(ParseAttrDict(&op->attrs));
    if (tok_.kind != Tok::kAngled || tok_.text != "dense") return Unexpected("dense<...>");
    SEAM_ASSIGN_OR_RETURN(Attr value, ParseAttrValue());
    op->result_types.push_back(value.type);
    op->attrs["value"] = std::move(value);
    return SkipLocation();
  }
  if (name == "stablehlo.iota") {
    SEAM_RETURN_IF_ERROR(ExpectIdent("dim", "after stablehlo.iota"));
    SEAM_RETURN_IF_ERROR(Expect('=', "after 'dim'"));
    Attr dim;
    dim.kind = Attr::kInt;
    dim.pos = tok_.pos;
    SEAM_ASSIGN_OR_RETURN(dim.i, ParseInt("the iota dimension"));
    op->attrs["iota_dimension"] = dim;
  } else if (name == "stablehlo.compare") {
    SEAM_RETURN_IF_ERROR(ParsePrettyCompare(op));
  } else if (name == "stablehlo.dot_general") {
    SEAM_RETURN_IF_ERROR(ParsePrettyDot(op));
  } else if (name == "stablehlo.reduce") {
    SEAM_RETURN_IF_ERROR(ParsePrettyReduce(op));
  } else if (name.substr(0, 10) == "stablehlo." || name.substr(0, 5) == "chlo.") {
    SEAM_RETURN_IF_ERROR(ParsePrettyOperands(op));
    if (prev_.kind == Tok::kPunct && prev_.text == ",") {
      // broadcast_in_dim %x, dims = [...]; transpose %x, dims = [...]
      const char* attr_name = name == "stablehlo.broadcast_in_dim" ? "broadcast_dimensions"
                              : name == "stablehlo.transpose"      ? "permutation"
                                                                   : nullptr;
      if (attr_name == nullptr || !AtIdent("dims")) return Unexpected("a value (%name)");
      Pos pos = tok_.pos;
      SEAM_RETURN_IF_ERROR(Advance());
      SEAM_RETURN_IF_ERROR(Expect('=', "after 'dims'"));
      SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ParseIntList("dims"));
      op->attrs[attr_name] = IntArray(std::move(dims), pos);
    }
  } else {
    return ErrorAt(op->name_pos, Cat("unknown op ", Quote(name)));
  }
  if (AtPunct('{')) SEAM_RETURN_IF_ERROR(ParseAttrDict(&op->attrs));
  if (!AtPunct(':')) return Unexpected("':' before the op's type");
  SEAM_RETURN_IF_ERROR(Advance());
  if (AtPunct('(')) {
    SEAM_RETURN_IF_ERROR(Advance());
    if (!AtPunct(')')) SEAM_RETURN_IF_ERROR(ParseTypeList(&op->operand_types));
    SEAM_RETURN_IF_ERROR(Expect(')', "to close the operand types"));
    if (tok_.kind != Tok::kArrow) return Unexpected("'->' before the result types");
    SEAM_RETURN_IF_ERROR(Advance());
    if (AtPunct('(')) {
      SEAM_RETURN_IF_ERROR(Advance());
      SEAM_RETURN_IF_ERROR(ParseTypeList(&op->result_types));
      SEAM_RETURN_IF_ERROR(Expect(')', "to close the result types"));
    } else {
      SEAM_ASSIGN_OR_RETURN(Type t, ParseType());
      op->result_types.push_back(std::move(t));
    }
    return SkipLocation();
  }
  std::vector<Type> types;
  SEAM_RETURN_IF_ERROR(ParseTypeList(&types));
  const size_t n = op->operands.size();
  if (types.size() == 1) {
    op->operand_types.assign(n, types[0]);
    op->result_types.push_back(types[0]);
  } else if (name == "stablehlo.select" && types.size() == 2 && n == 3) {
    op->operand_types = {types[0], types[1], types[1]};
    op->result_types.push_back(types[1]);
  } else {
    return ErrorAt(types[1].pos, Cat("expected one type for ", Quote(name),
                                     " (or a functional type), found ", types.size()));
  }
  return SkipLocation();
}

}  // namespace seam::stablehlo::syntax
