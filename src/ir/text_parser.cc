#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/base/status_macros.h"
#include "src/ir/bf16.h"
#include "src/ir/text.h"
#include "src/ir/verifier.h"

namespace seam::ir {
namespace {

enum class Tok {
  kWord,   // [A-Za-z0-9_.+-]+: keywords, op names, dtypes, numbers, "-inf"
  kRef,    // %name
  kAt,     // @name or @"quoted name"; value holds the unquoted name
  kPunct,  // one of {}()[],=:
  kOther,  // any other single byte
  kEnd,
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;   // as written
  std::string value;  // kAt only
  int line = 1;
};

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '+' || c == '-';
}

bool IsRefChar(char c) { return IsWordChar(c) && c != '+' && c != '-'; }

bool IsNameChar(char c) { return IsWordChar(c) && c != '+'; }

// Quoted form of a token for messages; long or binary input stays readable.
std::string Describe(const Token& tok) {
  if (tok.kind == Tok::kEnd) return "end of input";
  constexpr size_t kMaxShown = 40;
  std::string out = "'";
  for (size_t i = 0; i < tok.text.size() && i < kMaxShown; ++i) {
    auto u = static_cast<unsigned char>(tok.text[i]);
    out += (u < 0x20 || u >= 0x7f) ? absl::StrFormat("\\x%02x", u) : std::string(1, tok.text[i]);
  }
  if (tok.text.size() > kMaxShown) out += "...";
  return out + "'";
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  absl::StatusOr<Program> Parse();

 private:
  absl::Status Error(int line, const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat("line ", line, ": ", message));
  }
  absl::Status Unexpected(const std::string& expected) const {
    return Error(tok_.line, absl::StrCat("expected ", expected, ", found ", Describe(tok_)));
  }

  absl::Status Advance();
  absl::Status LexQuotedName();
  bool AtPunct(char c) const { return tok_.kind == Tok::kPunct && tok_.text[0] == c; }
  bool AtWord(std::string_view word) const { return tok_.kind == Tok::kWord && tok_.text == word; }
  absl::Status Expect(char c, const std::string& where);
  absl::StatusOr<int64_t> ParseInt(const std::string& what);
  absl::StatusOr<int> ParseRef();

  absl::Status ParseHeader(Program* program);
  absl::Status ParseInstruction(Program* program);
  absl::Status ParseOperands(Instruction* inst, std::vector<Token>* values);
  absl::Status ParseAttributes(Instruction* inst);
  absl::StatusOr<Shape> ParseShape();
  absl::Status ParseConstant(const std::vector<Token>& values, int line, Instruction* inst);
  absl::Status ParseReturn(Program* program);
  absl::Status ParseAlias(Program* program);

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  Token tok_;
  std::map<std::string, int> names_;    // instruction name -> position
  std::vector<int> instruction_lines_;  // position -> line of its definition
  int return_line_ = 1;
  std::vector<int> alias_lines_;  // alias position -> line
};

absl::Status Parser::Advance() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') {
      ++line_;
      ++pos_;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
      ++pos_;
    } else if (c == '#') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
  tok_ = Token{Tok::kEnd, "", "", line_};
  if (pos_ >= text_.size()) return absl::OkStatus();
  size_t start = pos_;
  char c = text_[pos_++];
  auto take_while = [&](bool (*pred)(char)) {
    while (pos_ < text_.size() && pred(text_[pos_])) ++pos_;
  };
  if (c == '@' && pos_ < text_.size() && text_[pos_] == '"') return LexQuotedName();
  if (c == '%' && pos_ < text_.size() && IsRefChar(text_[pos_])) {
    tok_.kind = Tok::kRef;
    take_while(IsRefChar);
  } else if (c == '@' && pos_ < text_.size() && IsNameChar(text_[pos_])) {
    tok_.kind = Tok::kAt;
    take_while(IsNameChar);
    tok_.value = std::string(text_.substr(start + 1, pos_ - start - 1));
  } else if (IsWordChar(c)) {
    tok_.kind = Tok::kWord;
    take_while(IsWordChar);
  } else if (std::strchr("{}()[],=:", c) != nullptr && c != '\0') {
    tok_.kind = Tok::kPunct;
  } else {
    tok_.kind = Tok::kOther;
  }
  tok_.text = std::string(text_.substr(start, pos_ - start));
  return absl::OkStatus();
}

// @"..." with \" \\ and \xNN escapes, the printer's form for names that are not plain.
absl::Status Parser::LexQuotedName() {
  size_t start = pos_ - 1;
  ++pos_;  // the opening quote
  tok_.kind = Tok::kAt;
  while (true) {
    if (pos_ >= text_.size() || text_[pos_] == '\n') {
      return Error(line_, "unterminated quoted program name");
    }
    char c = text_[pos_++];
    if (c == '"') break;
    if (c != '\\') {
      tok_.value += c;
      continue;
    }
    if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\\')) {
      tok_.value += text_[pos_++];
      continue;
    }
    unsigned byte = 0;
    bool hex = pos_ + 2 < text_.size() && text_[pos_] == 'x';
    if (hex) {
      auto [end, ec] = std::from_chars(text_.data() + pos_ + 1, text_.data() + pos_ + 3, byte, 16);
      hex = ec == std::errc() && end == text_.data() + pos_ + 3;
    }
    if (!hex) {
      return Error(line_,
                   absl::StrCat("invalid escape in program name, expected \\\", \\\\ or "
                                "\\xNN, found ",
                                Describe(Token{Tok::kOther, std::string(text_.substr(pos_ - 1, 2)),
                                               "", line_})));
    }
    tok_.value += static_cast<char>(byte);
    pos_ += 3;
  }
  tok_.text = std::string(text_.substr(start, pos_ - start));
  return absl::OkStatus();
}

absl::Status Parser::Expect(char c, const std::string& where) {
  if (!AtPunct(c)) return Unexpected(absl::StrCat("'", std::string(1, c), "' ", where));
  return Advance();
}

absl::StatusOr<int64_t> Parser::ParseInt(const std::string& what) {
  if (tok_.kind != Tok::kWord) return Unexpected(what);
  int64_t value = 0;
  const char* first = tok_.text.data();
  const char* last = first + tok_.text.size();
  auto [end, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range && end == last) {
    return Error(tok_.line, absl::StrCat(what, " ", Describe(tok_), " is out of range"));
  }
  if (ec != std::errc() || end != last) return Unexpected(what);
  SEAM_RETURN_IF_ERROR(Advance());
  return value;
}

absl::StatusOr<int> Parser::ParseRef() {
  if (tok_.kind != Tok::kRef) return Unexpected("an instruction name like %x");
  auto it = names_.find(tok_.text);
  if (it == names_.end()) return Error(tok_.line, tok_.text + " is not defined");
  SEAM_RETURN_IF_ERROR(Advance());
  return it->second;
}

absl::Status Parser::ParseHeader(Program* program) {
  if (!AtWord("program")) return Unexpected("'program'");
  SEAM_RETURN_IF_ERROR(Advance());
  if (tok_.kind != Tok::kAt) return Unexpected("a program name like @main after 'program'");
  program->name = tok_.value;
  SEAM_RETURN_IF_ERROR(Advance());
  if (AtWord("replicas")) {
    SEAM_RETURN_IF_ERROR(Advance());
    SEAM_RETURN_IF_ERROR(Expect('=', "after 'replicas'"));
    Token count_tok = tok_;
    SEAM_ASSIGN_OR_RETURN(program->replica_count, ParseInt("a replica count"));
    if (program->replica_count < 1) {
      return Error(count_tok.line,
                   absl::StrCat("replicas must be >= 1, found ", Describe(count_tok)));
    }
  }
  return Expect('{', "to open the program body");
}

absl::Status Parser::ParseOperands(Instruction* inst, std::vector<Token>* values) {
  if (inst->op == Op::kParameter) {
    SEAM_ASSIGN_OR_RETURN(inst->parameter_index, ParseInt("a parameter index"));
    return absl::OkStatus();
  }
  if (inst->op == Op::kConstant) {
    bool braced = AtPunct('{');
    if (braced) SEAM_RETURN_IF_ERROR(Advance());
    while (!(braced && AtPunct('}'))) {
      if (tok_.kind != Tok::kWord) return Unexpected("a constant value");
      values->push_back(tok_);
      SEAM_RETURN_IF_ERROR(Advance());
      if (!braced) return absl::OkStatus();
      if (AtPunct(',')) {
        SEAM_RETURN_IF_ERROR(Advance());
      } else if (!AtPunct('}')) {
        return Unexpected("',' or '}' in the constant's values");
      }
    }
    return Advance();
  }
  if (AtPunct(')')) return absl::OkStatus();
  while (true) {
    SEAM_ASSIGN_OR_RETURN(int operand, ParseRef());
    inst->operands.push_back(operand);
    if (!AtPunct(',')) return absl::OkStatus();
    SEAM_RETURN_IF_ERROR(Advance());
  }
}

absl::Status Parser::ParseAttributes(Instruction* inst) {
  while (AtPunct(',')) {
    SEAM_RETURN_IF_ERROR(Advance());
    if (tok_.kind != Tok::kWord) return Unexpected("an attribute name after ','");
    Token name = tok_;
    if (inst->attrs.count(name.text) > 0) {
      return Error(name.line, absl::StrCat("duplicate attribute ", Describe(name)));
    }
    SEAM_RETURN_IF_ERROR(Advance());
    SEAM_RETURN_IF_ERROR(Expect('=', "after attribute " + Describe(name)));
    SEAM_RETURN_IF_ERROR(Expect('{', "to open the values of " + Describe(name)));
    std::vector<int64_t>& values = inst->attrs[name.text];
    while (!AtPunct('}')) {
      SEAM_ASSIGN_OR_RETURN(int64_t v, ParseInt("an integer in " + Describe(name)));
      values.push_back(v);
      if (AtPunct(',')) {
        SEAM_RETURN_IF_ERROR(Advance());
      } else if (!AtPunct('}')) {
        return Unexpected("',' or '}' in the values of " + Describe(name));
      }
    }
    SEAM_RETURN_IF_ERROR(Advance());
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> Parser::ParseShape() {
  Shape shape;
  std::optional<DType> dtype;
  if (tok_.kind == Tok::kWord) dtype = ParseDType(tok_.text);
  if (!dtype) return Unexpected(absl::StrCat("a dtype (", DTypeSetToString(kAllDTypes), ")"));
  shape.dtype = *dtype;
  int line = tok_.line;
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_RETURN_IF_ERROR(Expect('[', "after the dtype"));
  while (!AtPunct(']')) {
    Token dim_tok = tok_;
    SEAM_ASSIGN_OR_RETURN(int64_t dim, ParseInt("a dimension"));
    if (dim < 0) {
      return Error(dim_tok.line,
                   absl::StrCat("expected a non-negative dimension, found ", Describe(dim_tok)));
    }
    shape.dims.push_back(dim);
    if (AtPunct(',')) {
      SEAM_RETURN_IF_ERROR(Advance());
    } else if (!AtPunct(']')) {
      return Unexpected("',' or ']' in the dimensions");
    }
  }
  SEAM_RETURN_IF_ERROR(Advance());
  absl::Status valid = ValidateShape(shape);
  if (!valid.ok()) return Error(line, std::string(valid.message()));
  return shape;
}

template <typename T>
std::from_chars_result ParseNumber(const Token& v, T* x) {
  const char* first = v.text.data();
  const char* last = first + v.text.size();
  if constexpr (std::is_floating_point_v<T>) {
    if (v.text == "nan") {
      *x = std::numeric_limits<T>::quiet_NaN();
      return {last, std::errc()};
    }
    if (v.text == "inf" || v.text == "-inf") {
      *x = (v.text[0] == '-' ? -1 : 1) * std::numeric_limits<T>::infinity();
      return {last, std::errc()};
    }
  }
  return std::from_chars(first, last, *x);
}

// Parses one element of `dtype` into `out`; the error, if any, is for the caller to word.
std::from_chars_result ParseElement(DType dtype, const Token& v, uint8_t* out) {
  const char* last = v.text.data() + v.text.size();
  switch (dtype) {
    case DType::kF32:
    case DType::kBF16: {
      float x = 0;
      std::from_chars_result r = ParseNumber(v, &x);
      if (dtype == DType::kF32) {
        std::memcpy(out, &x, sizeof(x));
        return r;
      }
      // bf16 text is read as f32 and rounded; a finite value that rounds to infinity is
      // out of range, as it is for the other float types.
      uint16_t h = FloatToBF16(x);
      if (r.ec == std::errc() && std::isfinite(x) && std::isinf(BF16ToFloat(h))) {
        r.ec = std::errc::result_out_of_range;
      }
      std::memcpy(out, &h, sizeof(h));
      return r;
    }
    case DType::kF64: {
      double x = 0;
      std::from_chars_result r = ParseNumber(v, &x);
      std::memcpy(out, &x, sizeof(x));
      return r;
    }
    case DType::kS32: {
      int32_t x = 0;
      std::from_chars_result r = ParseNumber(v, &x);
      std::memcpy(out, &x, sizeof(x));
      return r;
    }
    case DType::kS64: {
      int64_t x = 0;
      std::from_chars_result r = ParseNumber(v, &x);
      std::memcpy(out, &x, sizeof(x));
      return r;
    }
    case DType::kPred:
      *out = v.text == "true";
      return {last,
              v.text == "true" || v.text == "false" ? std::errc() : std::errc::invalid_argument};
  }
  return {v.text.data(), std::errc::invalid_argument};
}

absl::Status Parser::ParseConstant(const std::vector<Token>& values, int line, Instruction* inst) {
  const Shape& shape = inst->shape;
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    return Error(line, absl::StrCat("constant has ", values.size(), " values, shape ",
                                    shape.ToString(), " needs ", shape.num_elements()));
  }
  inst->literal.shape = shape;
  inst->literal.bytes.resize(shape.byte_size());
  uint8_t* out = inst->literal.bytes.data();
  std::string dtype(DTypeName(shape.dtype));
  for (const Token& v : values) {
    std::from_chars_result r = ParseElement(shape.dtype, v, out);
    const char* last = v.text.data() + v.text.size();
    if (r.ec == std::errc::result_out_of_range && r.ptr == last) {
      return Error(v.line, absl::StrCat(dtype, " value ", Describe(v), " is out of range"));
    }
    if (r.ec != std::errc() || r.ptr != last) {
      const char* article = dtype[0] == 'f' || dtype[0] == 's' ? "an " : "a ";
      std::string hint = shape.dtype == DType::kPred ? " (true or false)" : "";
      return Error(v.line, absl::StrCat("expected ", article, dtype, " value", hint, ", found ",
                                        Describe(v)));
    }
    out += DTypeSize(shape.dtype);
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseInstruction(Program* program) {
  Token name = tok_;
  int line = name.line;
  auto previous = names_.find(name.text);
  if (previous != names_.end()) {
    return Error(line, absl::StrCat(name.text, " is already defined (line ",
                                    instruction_lines_[previous->second], ")"));
  }
  if (program->instructions.size() >= static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Error(line, "too many instructions");
  }
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_RETURN_IF_ERROR(Expect('=', "after " + name.text));
  Instruction inst;
  if (tok_.kind != Tok::kWord) return Unexpected("an op name");
  if (!ParseOpName(tok_.text, &inst.op)) {
    return Error(tok_.line, absl::StrCat("unknown op ", Describe(tok_)));
  }
  std::string op_name(OpName(inst.op));
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_RETURN_IF_ERROR(Expect('(', "after '" + op_name + "'"));
  std::vector<Token> values;
  SEAM_RETURN_IF_ERROR(ParseOperands(&inst, &values));
  SEAM_RETURN_IF_ERROR(Expect(')', "after the operands of '" + op_name + "'"));
  SEAM_RETURN_IF_ERROR(ParseAttributes(&inst));
  SEAM_RETURN_IF_ERROR(Expect(':', "after the operands"));
  SEAM_ASSIGN_OR_RETURN(inst.shape, ParseShape());
  if (inst.op == Op::kConstant) SEAM_RETURN_IF_ERROR(ParseConstant(values, line, &inst));
  names_[name.text] = static_cast<int>(program->instructions.size());
  instruction_lines_.push_back(line);
  program->instructions.push_back(std::move(inst));
  return absl::OkStatus();
}

absl::Status Parser::ParseReturn(Program* program) {
  return_line_ = tok_.line;
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_RETURN_IF_ERROR(Expect('(', "after 'return'"));
  while (!AtPunct(')')) {
    SEAM_ASSIGN_OR_RETURN(int result, ParseRef());
    program->results.push_back(result);
    if (AtPunct(',')) {
      SEAM_RETURN_IF_ERROR(Advance());
    } else if (!AtPunct(')')) {
      return Unexpected("',' or ')' in the return list");
    }
  }
  SEAM_RETURN_IF_ERROR(Advance());
  return Expect('}', "after the return");
}

// alias output <i> = parameter <j>
absl::Status Parser::ParseAlias(Program* program) {
  alias_lines_.push_back(tok_.line);
  SEAM_RETURN_IF_ERROR(Advance());
  if (!AtWord("output")) return Unexpected("'output' after 'alias'");
  SEAM_RETURN_IF_ERROR(Advance());
  Alias alias;
  SEAM_ASSIGN_OR_RETURN(alias.output_index, ParseInt("an output index"));
  SEAM_RETURN_IF_ERROR(Expect('=', "after the alias's output index"));
  if (!AtWord("parameter")) return Unexpected("'parameter' in the alias");
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_ASSIGN_OR_RETURN(alias.parameter_index, ParseInt("a parameter index"));
  program->aliases.push_back(alias);
  return absl::OkStatus();
}

absl::StatusOr<Program> Parser::Parse() {
  Program program;
  SEAM_RETURN_IF_ERROR(Advance());
  SEAM_RETURN_IF_ERROR(ParseHeader(&program));
  while (!AtWord("return")) {
    if (AtWord("alias")) {
      SEAM_RETURN_IF_ERROR(ParseAlias(&program));
      continue;
    }
    if (tok_.kind != Tok::kRef) return Unexpected("an instruction like '%x = ...' or 'return'");
    SEAM_RETURN_IF_ERROR(ParseInstruction(&program));
  }
  SEAM_RETURN_IF_ERROR(ParseReturn(&program));
  if (tok_.kind != Tok::kEnd) return Unexpected("end of input after '}'");
  int bad = -1;
  absl::Status verified = VerifyProgram(program, &bad);
  if (!verified.ok()) {
    int line = bad >= 0 ? instruction_lines_[bad] : return_line_;
    int bad_alias = -1;
    if (bad < 0 && absl::StartsWith(verified.message(), "alias ") &&
        !VerifyAliases(program, &bad_alias).ok() && bad_alias >= 0) {
      line = alias_lines_[bad_alias];
    }
    return Error(line, std::string(verified.message()));
  }
  return program;
}

}  // namespace

absl::StatusOr<Program> ParseProgram(std::string_view text) {
  Parser parser(text);
  return parser.Parse();
}

}  // namespace seam::ir
