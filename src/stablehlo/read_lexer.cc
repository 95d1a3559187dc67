// The StableHLO reader's lexer: MLIR text to tokens with their line and column.
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/stablehlo/read_syntax.h"

namespace seam::stablehlo::syntax {
namespace {

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsAlpha(c) || IsDigit(c) || c == '$' || c == '.'; }
bool IsValueChar(char c) { return IsIdentChar(c) || c == '-'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

}  // namespace

absl::Status ErrorAt(Pos pos, const std::string& message) {
  return absl::InvalidArgumentError(
      absl::StrCat("line ", pos.line, ", column ", pos.col, ": ", message));
}

std::string Quote(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    auto u = static_cast<unsigned char>(text[i]);
    out += (u < 0x20 || u >= 0x7f) ? absl::StrFormat("\\x%02x", u) : std::string(1, text[i]);
  }
  if (text.size() > kMaxShown) out += "...";
  return out + "'";
}

std::string QuoteValue(const std::string& name) {
  std::string text;
  text.reserve(name.size() + 1);
  text.push_back('%');
  text.append(name);
  return Quote(text);
}

void Lexer::Bump() {
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::Skip() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f') {
      Bump();
    } else if (c == '/' && Peek(1) == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') Bump();
    } else {
      break;
    }
  }
}

// word<...> with nested <> (a '>' right after '-' is an arrow, not a closing bracket) and
// quoted strings inside.
absl::Status Lexer::LexAngled(Token* tok) {
  Bump();  // '<'
  tok->kind = Tok::kAngled;
  tok->inner_pos = Pos{line_, col_};
  size_t start = pos_;
  int depth = 1;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '"') {
      Bump();
      while (pos_ < text_.size() && text_[pos_] != '"') {
        if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) Bump();
        Bump();
      }
      if (pos_ >= text_.size()) break;
    } else if (c == '<') {
      ++depth;
    } else if (c == '>' && !(pos_ > start && text_[pos_ - 1] == '-')) {
      if (--depth == 0) {
        tok->inner = std::string(text_.substr(start, pos_ - start));
        Bump();
        return absl::OkStatus();
      }
    }
    Bump();
  }
  return ErrorAt(tok->pos, absl::StrCat("unbalanced '<' after ", Quote(tok->text)));
}

absl::Status Lexer::LexString(Token* tok) {
  Bump();  // '"'
  tok->kind = Tok::kString;
  while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
    char c = text_[pos_];
    if (c == '\\' && pos_ + 1 < text_.size()) {
      Bump();
      char e = text_[pos_];
      if (IsHexDigit(e) && pos_ + 1 < text_.size() && IsHexDigit(text_[pos_ + 1])) {
        tok->text += static_cast<char>(std::stoi(std::string(text_.substr(pos_, 2)), nullptr, 16));
        Bump();
      } else {
        tok->text += e == 'n' ? '\n' : (e == 't' ? '\t' : e);
      }
      Bump();
      continue;
    }
    tok->text += c;
    Bump();
  }
  if (pos_ >= text_.size() || text_[pos_] != '"') {
    return ErrorAt(tok->pos, "unterminated string");
  }
  Bump();
  return absl::OkStatus();
}

void Lexer::LexNumber(Token* tok) {
  size_t start = pos_;
  tok->kind = Tok::kInt;
  if (Peek() == '-' || Peek() == '+') Bump();
  if (Peek() == '0' && (Peek(1) == 'x' || Peek(1) == 'X')) {
    Bump();
    Bump();
    while (IsHexDigit(Peek())) Bump();
  } else {
    while (IsDigit(Peek())) Bump();
    if (Peek() == '.' && IsDigit(Peek(1))) {
      tok->kind = Tok::kFloat;
      Bump();
      while (IsDigit(Peek())) Bump();
    } else if (Peek() == '.') {
      tok->kind = Tok::kFloat;
      Bump();
    }
    if ((Peek() == 'e' || Peek() == 'E') &&
        (IsDigit(Peek(1)) || ((Peek(1) == '-' || Peek(1) == '+') && IsDigit(Peek(2))))) {
      tok->kind = Tok::kFloat;
      Bump();
      if (Peek() == '-' || Peek() == '+') Bump();
      while (IsDigit(Peek())) Bump();
    }
  }
  tok->text = std::string(text_.substr(start, pos_ - start));
}

absl::StatusOr<Token> Lexer::Next() {
  Skip();
  Token tok;
  tok.pos = Pos{line_, col_};
  if (pos_ >= text_.size()) return tok;
  const char c = text_[pos_];
  const size_t start = pos_;
  if (IsDigit(c) || ((c == '-' || c == '+') && IsDigit(Peek(1)))) {
    LexNumber(&tok);
    return tok;
  }
  if (c == '-' && Peek(1) == '>') {
    Bump();
    Bump();
    tok.kind = Tok::kArrow;
    tok.text = "->";
    return tok;
  }
  if (c == '"') {
    if (absl::Status s = LexString(&tok); !s.ok()) return s;
    return tok;
  }
  if (c == '%' || c == '^') {
    Bump();
    while (IsValueChar(Peek())) Bump();
    tok.kind = c == '%' ? Tok::kValue : Tok::kBlock;
    tok.text = std::string(text_.substr(start + 1, pos_ - start - 1));
    if (tok.text.empty()) {
      tok.kind = Tok::kOther;
      tok.text = std::string(1, c);
      return tok;
    }
    if (c == '%' && Peek() == '#' && IsDigit(Peek(1))) {
      Bump();
      size_t digits = pos_;
      while (IsDigit(Peek()) && pos_ - digits < 9) Bump();
      tok.index = std::stoll(std::string(text_.substr(digits, pos_ - digits)));
    }
    return tok;
  }
  if (c == '@') {
    Bump();
    tok.kind = Tok::kSymbol;
    if (Peek() == '"') {
      Token quoted;
      quoted.pos = tok.pos;
      if (absl::Status s = LexString(&quoted); !s.ok()) return s;
      tok.text = quoted.text;
      return tok;
    }
    while (IsValueChar(Peek())) Bump();
    tok.text = std::string(text_.substr(start + 1, pos_ - start - 1));
    if (tok.text.empty()) {
      tok.kind = Tok::kOther;
      tok.text.push_back('@');
    }
    return tok;
  }
  if (IsAlpha(c) || (c == '#' && IsAlpha(Peek(1)))) {
    Bump();
    while (IsIdentChar(Peek())) Bump();
    tok.kind = Tok::kIdent;
    tok.text = std::string(text_.substr(start, pos_ - start));
    if (Peek() == '<' &&
        (c == '#' || tok.text == "tensor" || tok.text == "array" || tok.text == "dense" ||
         tok.text == "complex" || tok.text == "dense_resource")) {
      if (absl::Status s = LexAngled(&tok); !s.ok()) return s;
    }
    return tok;
  }
  Bump();
  tok.text = std::string(1, c);
  tok.kind = std::strchr("(){}[],=:<>*?", c) != nullptr && c != '\0' ? Tok::kPunct : Tok::kOther;
  return tok;
}

}  // namespace seam::stablehlo::syntax
