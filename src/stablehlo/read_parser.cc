// The StableHLO reader's parser: modules, functions, ops in MLIR's generic form, regions,
// types and attributes (read_syntax.h). The pretty forms are in read_pretty.cc.
#include "src/stablehlo/read_parser.h"

#include <charconv>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"

namespace seam::stablehlo::syntax {
namespace {

std::string Describe(const Token& tok) {
  if (tok.kind == Tok::kEnd) return "end of input";
  if (tok.kind == Tok::kValue) return QuoteValue(tok.text);
  if (tok.kind == Tok::kAngled) return Quote(Cat(tok.text, "<", tok.inner, ">"));
  return Quote(tok.text);
}

}  // namespace

std::string Type::ToString() const {
  std::string out = "tensor<";
  for (int64_t d : dims) absl::StrAppend(&out, d, "x");
  return Cat(out, element, ">");
}

std::string ValueUse::Key() const { return index == 0 ? std::string(name) : Cat(name, "#", index); }

absl::Status Parser::Advance() {
  prev_ = tok_;
  return lexer_.Next(&tok_);
}

absl::Status Parser::Unexpected(std::string_view expected) const {
  return ErrorAt(tok_.pos, Cat("expected ", expected, ", found ", Describe(tok_)));
}

absl::Status Parser::Expect(char c, std::string_view where) {
  if (!AtPunct(c)) return Unexpected(Cat("'", std::string(1, c), "' ", where));
  return Advance();
}

absl::Status Parser::ExpectIdent(std::string_view word, std::string_view where) {
  if (!AtIdent(word)) return Unexpected(Cat("'", word, "' ", where));
  return Advance();
}

absl::StatusOr<int64_t> Parser::ParseInt(std::string_view what, std::string_view of) {
  if (tok_.kind != Tok::kInt) return Unexpected(Cat(what, of));
  std::string_view text = tok_.text;
  bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  int base = 10;
  if (text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
  const uint64_t limit = negative ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  if (ec != std::errc() || end != text.data() + text.size() || magnitude > limit) {
    return ErrorAt(tok_.pos, Cat(what, of, " ", Describe(tok_), " is not an int64"));
  }
  int64_t value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  SEAM_RETURN_IF_ERROR(Advance());
  return value;
}

absl::StatusOr<std::vector<int64_t>> Parser::ParseIntList(std::string_view what) {
  if (!AtPunct('[')) return Unexpected(Cat("'[' to open ", what));
  SEAM_RETURN_IF_ERROR(Advance());
  std::vector<int64_t> values;
  while (!AtPunct(']')) {
    if (values.size() >= 4096) return ErrorAt(tok_.pos, Cat(what, " is too long"));
    SEAM_ASSIGN_OR_RETURN(int64_t v, ParseInt("an integer in ", what));
    values.push_back(v);
    if (!AtPunct(',')) break;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  if (!AtPunct(']')) return Unexpected(Cat("']' to close ", what));
  SEAM_RETURN_IF_ERROR(Advance());
  return values;
}

absl::StatusOr<Type> Parser::ParseType() {
  if (tok_.kind != Tok::kAngled || tok_.text != "tensor") {
    if (tok_.kind == Tok::kIdent || tok_.kind == Tok::kAngled || tok_.kind == Tok::kOther) {
      return ErrorAt(tok_.pos, Cat("unknown type ", Describe(tok_),
                                   " (the reader takes ranked tensor<...> types)"));
    }
    return Unexpected("a type");
  }
  Type type;
  type.pos = tok_.pos;
  std::string_view inner = tok_.inner;
  size_t i = 0;
  while (i < inner.size() && inner[i] >= '0' && inner[i] <= '9') {
    size_t start = i;
    while (i < inner.size() && inner[i] >= '0' && inner[i] <= '9') ++i;
    int64_t dim = 0;
    auto [end, ec] = std::from_chars(inner.data() + start, inner.data() + i, dim);
    if (ec != std::errc() || i >= inner.size() || inner[i] != 'x' || type.dims.size() >= 64) {
      return ErrorAt(tok_.pos, Cat("unsupported type ", Describe(tok_),
                                   " (dimensions are int64 sizes, at most 64)"));
    }
    type.dims.push_back(dim);
    ++i;
  }
  // The element as a view of a static name, so that a type outlives the text it came from.
  static constexpr std::string_view kKnown[] = {"f32", "f64", "bf16", "i1",  "i32",  "i64", "ui64",
                                                "f16", "i8",  "i16",  "ui8", "ui16", "ui32"};
  const std::string_view element = inner.substr(i);
  for (std::string_view k : kKnown) {
    if (element == k) type.element = k;
  }
  if (type.element.empty()) {
    return ErrorAt(tok_.pos, Cat("unsupported type ", Describe(tok_),
                                 " (element types: f32, f64, bf16, i1, i32, i64)"));
  }
  SEAM_RETURN_IF_ERROR(Advance());
  return type;
}

absl::Status Parser::ParseTypeList(std::vector<Type>* types) {
  while (true) {
    if (types->size() >= 4096) return ErrorAt(tok_.pos, "too many types");
    SEAM_ASSIGN_OR_RETURN(Type t, ParseType());
    types->push_back(std::move(t));
    if (AtPunct('{')) {  // result attributes (jax.result_info): ignored
      AttrMap ignored;
      SEAM_RETURN_IF_ERROR(ParseAttrDict(&ignored));
    }
    if (!AtPunct(',')) return absl::OkStatus();
    SEAM_RETURN_IF_ERROR(Advance());
  }
}

// `: (operand types) -> result type(s)`, the generic form's signature.
absl::Status Parser::ParseSignature(Op* op) {
  SEAM_RETURN_IF_ERROR(Expect(':', "before the op's type"));
  SEAM_RETURN_IF_ERROR(Expect('(', "to open the operand types"));
  if (!AtPunct(')')) SEAM_RETURN_IF_ERROR(ParseTypeList(&op->operand_types));
  SEAM_RETURN_IF_ERROR(Expect(')', "to close the operand types"));
  if (tok_.kind != Tok::kArrow) return Unexpected("'->' before the result types");
  SEAM_RETURN_IF_ERROR(Advance());
  if (AtPunct('(')) {
    SEAM_RETURN_IF_ERROR(Advance());
    if (!AtPunct(')')) SEAM_RETURN_IF_ERROR(ParseTypeList(&op->result_types));
    return Expect(')', "to close the result types");
  }
  SEAM_ASSIGN_OR_RETURN(Type t, ParseType());
  op->result_types.push_back(std::move(t));
  return absl::OkStatus();
}

absl::Status Parser::SkipLocation() {
  if (!AtIdent("loc")) return absl::OkStatus();
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_RETURN_IF_ERROR(Expect('(', "after 'loc'"));
  int depth = 1;
  while (depth > 0) {
    if (tok_.kind == Tok::kEnd) return Unexpected("')' to close the location");
    if (AtPunct('(')) ++depth;
    if (AtPunct(')')) --depth;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  return absl::OkStatus();
}

absl::StatusOr<ValueUse> Parser::ParseValueUse() {
  if (tok_.kind != Tok::kValue) return Unexpected("a value (%name)");
  ValueUse use{tok_.text, tok_.index < 0 ? 0 : tok_.index, tok_.pos};
  SEAM_RETURN_IF_ERROR(Advance());
  return use;
}

absl::Status Parser::ParseOperandList(Op* op, char close) {
  while (!AtPunct(close)) {
    if (op->operands.size() >= 4096) return ErrorAt(tok_.pos, "too many operands");
    SEAM_ASSIGN_OR_RETURN(ValueUse use, ParseValueUse());
    op->operands.push_back(use);
    if (!AtPunct(',')) break;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  return Expect(close, "to close the operand list");
}

absl::Status Parser::ParseBlockBody(Block* block, Pos open) {
  block->pos = open;
  if (tok_.kind == Tok::kBlock) {
    SEAM_RETURN_IF_ERROR(Advance());
    if (AtPunct('(')) {
      SEAM_RETURN_IF_ERROR(Advance());
      while (tok_.kind == Tok::kValue) {
        if (block->arg_names.size() >= 64) return ErrorAt(tok_.pos, "too many block arguments");
        block->arg_names.push_back(tok_.text);
        SEAM_RETURN_IF_ERROR(Advance());
        SEAM_RETURN_IF_ERROR(Expect(':', "after a block argument"));
        SEAM_ASSIGN_OR_RETURN(Type t, ParseType());
        block->arg_types.push_back(std::move(t));
        SEAM_RETURN_IF_ERROR(SkipLocation());
        if (!AtPunct(',')) break;
        SEAM_RETURN_IF_ERROR(Advance());
      }
      SEAM_RETURN_IF_ERROR(Expect(')', "to close the block arguments"));
    }
    SEAM_RETURN_IF_ERROR(Expect(':', "after the block label"));
  }
  while (!AtPunct('}')) {
    if (tok_.kind == Tok::kEnd) {
      return ErrorAt(tok_.pos, Cat("unbalanced region: the region opened at line ", block->pos.line,
                                   ", column ", block->pos.col, " has no '}' (end of input)"));
    }
    if (block->ops.size() >= (1 << 20)) return ErrorAt(tok_.pos, "too many ops");
    SEAM_RETURN_IF_ERROR(ParseOp(&block->ops.emplace_back()));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseRegions(Op* op) {
  if (region_depth_ >= kMaxNesting) {
    return ErrorAt(tok_.pos, Cat("regions nested deeper than ", kMaxNesting));
  }
  ++region_depth_;
  absl::Status status = ParseRegionList(op);
  --region_depth_;
  return status;
}

absl::Status Parser::ParseRegionList(Op* op) {
  SEAM_RETURN_IF_ERROR(Expect('(', "to open the regions"));
  while (true) {
    if (op->regions.size() >= 8) return ErrorAt(tok_.pos, "too many regions");
    Pos open = tok_.pos;
    SEAM_RETURN_IF_ERROR(Expect('{', "to open a region"));
    Block block;
    SEAM_RETURN_IF_ERROR(ParseBlockBody(&block, open));
    SEAM_RETURN_IF_ERROR(Advance());  // '}'
    op->regions.push_back(std::move(block));
    if (!AtPunct(',')) break;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  return Expect(')', "to close the regions");
}

absl::Status Parser::ParseGenericOp(Op* op) {
  SEAM_RETURN_IF_ERROR(Advance());  // the quoted name
  SEAM_RETURN_IF_ERROR(Expect('(', "to open the operand list"));
  SEAM_RETURN_IF_ERROR(ParseOperandList(op, ')'));
  if (AtPunct('<')) {  // properties: <{...}>
    SEAM_RETURN_IF_ERROR(Advance());
    SEAM_RETURN_IF_ERROR(ParseAttrDict(&op->attrs));
    SEAM_RETURN_IF_ERROR(Expect('>', "to close the properties"));
  }
  if (AtPunct('(')) SEAM_RETURN_IF_ERROR(ParseRegions(op));
  if (AtPunct('{')) SEAM_RETURN_IF_ERROR(ParseAttrDict(&op->attrs));
  SEAM_RETURN_IF_ERROR(ParseSignature(op));
  return SkipLocation();
}

absl::Status Parser::ParseOp(Op* op) {
  op->pos = tok_.pos;
  if (tok_.kind == Tok::kValue) {
    if (tok_.index >= 0) return Unexpected("a result name without '#'");
    op->result = tok_.text;
    op->num_results = 1;
    SEAM_RETURN_IF_ERROR(Advance());
    if (AtPunct(':')) {
      SEAM_RETURN_IF_ERROR(Advance());
      SEAM_ASSIGN_OR_RETURN(op->num_results, ParseInt("a result count"));
      if (op->num_results < 1 || op->num_results > 64) {
        return ErrorAt(prev_.pos,
                       Cat("result count ", op->num_results, " must be between 1 and 64"));
      }
    }
    SEAM_RETURN_IF_ERROR(Expect('=', "after the result name"));
  }
  op->name_pos = tok_.pos;
  if (tok_.kind == Tok::kString) {
    op->name = tok_.text;
    return ParseGenericOp(op);
  }
  if (tok_.kind == Tok::kIdent) {
    op->name = tok_.text;
    SEAM_RETURN_IF_ERROR(Advance());
    return ParsePrettyOp(op);
  }
  return Unexpected("an op");
}

absl::Status Parser::ParseFunction(Module* module) {
  SEAM_RETURN_IF_ERROR(Advance());  // func.func
  if (AtIdent("public") || AtIdent("private") || AtIdent("nested")) {
    SEAM_RETURN_IF_ERROR(Advance());
  }
  if (tok_.kind != Tok::kSymbol) return Unexpected("the function's name (@main)");
  if (tok_.text != "main") {
    return ErrorAt(tok_.pos, Cat("function ", Quote(Cat("@", tok_.text)),
                                 ": the reader takes one function, @main"));
  }
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_RETURN_IF_ERROR(Expect('(', "to open the arguments"));
  while (tok_.kind == Tok::kValue) {
    if (module->args.size() >= 65536) return ErrorAt(tok_.pos, "too many arguments");
    Argument arg;
    arg.name = tok_.text;
    SEAM_RETURN_IF_ERROR(Advance());
    SEAM_RETURN_IF_ERROR(Expect(':', "after an argument's name"));
    SEAM_ASSIGN_OR_RETURN(arg.type, ParseType());
    if (AtPunct('{')) SEAM_RETURN_IF_ERROR(ParseAttrDict(&arg.attrs));
    SEAM_RETURN_IF_ERROR(SkipLocation());
    module->args.push_back(std::move(arg));
    if (!AtPunct(',')) break;
    SEAM_RETURN_IF_ERROR(Advance());
  }
  SEAM_RETURN_IF_ERROR(Expect(')', "to close the arguments"));
  if (tok_.kind == Tok::kArrow) {
    SEAM_RETURN_IF_ERROR(Advance());
    if (AtPunct('(')) {
      SEAM_RETURN_IF_ERROR(Advance());
      if (!AtPunct(')')) SEAM_RETURN_IF_ERROR(ParseTypeList(&module->results));
      SEAM_RETURN_IF_ERROR(Expect(')', "to close the result types"));
    } else {
      SEAM_ASSIGN_OR_RETURN(Type t, ParseType());
      module->results.push_back(std::move(t));
    }
  }
  if (AtIdent("attributes")) {
    SEAM_RETURN_IF_ERROR(Advance());
    AttrMap ignored;
    SEAM_RETURN_IF_ERROR(ParseAttrDict(&ignored));
  }
  Pos open = tok_.pos;
  SEAM_RETURN_IF_ERROR(Expect('{', "to open the function's body"));
  SEAM_RETURN_IF_ERROR(ParseBlockBody(&module->body, open));
  SEAM_RETURN_IF_ERROR(Advance());  // '}'
  return SkipLocation();
}

absl::StatusOr<Module> Parser::ParseModuleText() {
  Module module;
  bool wrapped = false;
  bool have_function = false;
  Pos open;
  // #loc aliases (`#loc1 = loc(...)`) may stand before and after the module.
  auto skip_aliases = [&]() -> absl::Status {
    while (tok_.kind == Tok::kIdent && tok_.text[0] == '#') {
      SEAM_RETURN_IF_ERROR(Advance());
      SEAM_RETURN_IF_ERROR(Expect('=', "after an attribute alias"));
      if (AtIdent("loc")) {
        SEAM_RETURN_IF_ERROR(SkipLocation());
      } else {
        SEAM_RETURN_IF_ERROR(ParseAttrValue().status());
      }
    }
    return absl::OkStatus();
  };
  SEAM_RETURN_IF_ERROR(skip_aliases());
  if (AtIdent("module")) {
    wrapped = true;
    SEAM_RETURN_IF_ERROR(Advance());
    if (tok_.kind == Tok::kSymbol) {
      module.name = tok_.text;
      SEAM_RETURN_IF_ERROR(Advance());
    }
    if (AtIdent("attributes")) {
      SEAM_RETURN_IF_ERROR(Advance());
      SEAM_RETURN_IF_ERROR(ParseAttrDict(&module.attrs));
    }
    open = tok_.pos;
    SEAM_RETURN_IF_ERROR(Expect('{', "to open the module"));
  }
  while (AtIdent("func.func")) {
    if (have_function) {
      return ErrorAt(tok_.pos, "a second function: the reader takes one function, @main");
    }
    SEAM_RETURN_IF_ERROR(ParseFunction(&module));
    have_function = true;
  }
  if (!have_function) return Unexpected("'func.func @main'");
  if (wrapped) {
    if (tok_.kind == Tok::kEnd) {
      return ErrorAt(tok_.pos, Cat("unbalanced region: the module opened at line ", open.line,
                                   ", column ", open.col, " has no '}' (end of input)"));
    }
    SEAM_RETURN_IF_ERROR(Expect('}', "to close the module"));
    SEAM_RETURN_IF_ERROR(SkipLocation());
  }
  SEAM_RETURN_IF_ERROR(skip_aliases());
  if (tok_.kind != Tok::kEnd) return Unexpected("end of input");
  return module;
}

absl::StatusOr<Module> ParseModule(std::string_view text) {
  auto strings = std::make_unique<Strings>();
  Parser parser(text, Pos{1, 1}, strings.get());
  SEAM_RETURN_IF_ERROR(parser.Start());
  absl::StatusOr<Module> module = parser.ParseModuleText();
  if (module.ok()) module->strings = std::move(strings);
  return module;
}

}  // namespace seam::stablehlo::syntax
