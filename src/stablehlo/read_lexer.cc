// The StableHLO reader's lexer: MLIR text to tokens with their line and column.
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/stablehlo/read_syntax.h"

namespace seam::stablehlo::syntax {
namespace {

// Character classes, one table lookup each.
enum : uint8_t {
  kAlpha = 1,        // [A-Za-z_]
  kDigit = 2,        // [0-9]
  kIdent = 4,        // [A-Za-z0-9_$.]
  kValue = 8,        // an identifier character or '-'
  kHex = 16,         // [0-9A-Fa-f]
  kBlank = 32,       // space, \t, \r, \v, \f (not \n)
  kAngledStop = 64,  // what the scan of word<...> stops at: " < > \n
};

constexpr std::array<uint8_t, 256> kClasses = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    const bool ident = alpha || digit || c == '$' || c == '.';
    uint8_t k = 0;
    if (alpha) k |= kAlpha;
    if (digit) k |= kDigit;
    if (ident) k |= kIdent;
    if (ident || c == '-') k |= kValue;
    if (digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) k |= kHex;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') k |= kBlank;
    if (c == '"' || c == '<' || c == '>' || c == '\n') k |= kAngledStop;
    t[static_cast<size_t>(c)] = k;
  }
  return t;
}();

bool Is(char c, uint8_t classes) {
  return (kClasses[static_cast<unsigned char>(c)] & classes) != 0;
}
bool IsAlpha(char c) { return Is(c, kAlpha); }
bool IsDigit(char c) { return Is(c, kDigit); }
bool IsIdentChar(char c) { return Is(c, kIdent); }
bool IsValueChar(char c) { return Is(c, kValue); }
bool IsHexDigit(char c) { return Is(c, kHex); }

}  // namespace

absl::Status ErrorAt(Pos pos, const std::string& message) {
  return absl::InvalidArgumentError(Cat("line ", pos.line, ", column ", pos.col, ": ", message));
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

std::string QuoteValue(std::string_view name) {
  std::string text;
  text.reserve(name.size() + 1);
  text.push_back('%');
  text.append(name);
  return Quote(text);
}

void Lexer::Skip() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (Is(c, kBlank)) {
      ++pos_;
      ++col_;
    } else if (c == '\n') {
      ++pos_;
      ++line_;
      col_ = 1;
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
    if (!Is(c, kAngledStop)) {  // the common case: nothing to track
      ++pos_;
      ++col_;
      continue;
    }
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
        tok->inner = text_.substr(start, pos_ - start);
        Bump();
        return absl::OkStatus();
      }
    }
    Bump();
  }
  return ErrorAt(tok->pos, Cat("unbalanced '<' after ", Quote(tok->text)));
}

// The content of "..."; a view of the text unless it holds an escape, then a copy with the
// escapes replaced, kept in the strings store.
absl::Status Lexer::LexString(Token* tok) {
  Bump();  // '"'
  tok->kind = Tok::kString;
  const size_t start = pos_;
  while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n' && text_[pos_] != '\\') {
    ++pos_;
    ++col_;
  }
  if (pos_ < text_.size() && text_[pos_] == '"') {
    tok->text = text_.substr(start, pos_ - start);
    Bump();
    return absl::OkStatus();
  }
  std::string unescaped(text_.substr(start, pos_ - start));
  while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
    char c = text_[pos_];
    if (c == '\\' && pos_ + 1 < text_.size()) {
      Bump();
      char e = text_[pos_];
      if (IsHexDigit(e) && pos_ + 1 < text_.size() && IsHexDigit(text_[pos_ + 1])) {
        unsigned byte = 0;
        std::from_chars(text_.data() + pos_, text_.data() + pos_ + 2, byte, 16);
        unescaped += static_cast<char>(byte);
        Bump();
      } else {
        unescaped += e == 'n' ? '\n' : (e == 't' ? '\t' : e);
      }
      Bump();
      continue;
    }
    unescaped += c;
    Bump();
  }
  if (pos_ >= text_.size() || text_[pos_] != '"') {
    return ErrorAt(tok->pos, "unterminated string");
  }
  Bump();
  tok->text = strings_->emplace_back(std::move(unescaped));
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
  tok->text = text_.substr(start, pos_ - start);
}

absl::Status Lexer::Next(Token* tok) {
  Skip();
  tok->kind = Tok::kEnd;
  tok->text = std::string_view();
  tok->inner = std::string_view();
  tok->index = -1;
  tok->pos = Pos{line_, col_};
  if (pos_ >= text_.size()) return absl::OkStatus();
  const char c = text_[pos_];
  const size_t start = pos_;
  if (IsDigit(c) || ((c == '-' || c == '+') && IsDigit(Peek(1)))) {
    LexNumber(tok);
    return absl::OkStatus();
  }
  if (c == '-' && Peek(1) == '>') {
    BumpSameLine(2);
    tok->kind = Tok::kArrow;
    tok->text = text_.substr(start, 2);
    return absl::OkStatus();
  }
  if (c == '"') return LexString(tok);
  if (c == '%' || c == '^') {
    BumpSameLine(1);
    while (IsValueChar(Peek())) BumpSameLine(1);
    tok->kind = c == '%' ? Tok::kValue : Tok::kBlock;
    tok->text = text_.substr(start + 1, pos_ - start - 1);
    if (tok->text.empty()) {
      tok->kind = Tok::kOther;
      tok->text = text_.substr(start, 1);
      return absl::OkStatus();
    }
    if (c == '%' && Peek() == '#' && IsDigit(Peek(1))) {
      BumpSameLine(1);
      size_t digits = pos_;
      while (IsDigit(Peek()) && pos_ - digits < 9) BumpSameLine(1);
      int64_t index = 0;
      std::from_chars(text_.data() + digits, text_.data() + pos_, index);
      tok->index = index;
    }
    return absl::OkStatus();
  }
  if (c == '@') {
    BumpSameLine(1);
    tok->kind = Tok::kSymbol;
    if (Peek() == '"') {
      Token quoted;
      quoted.pos = tok->pos;
      if (absl::Status s = LexString(&quoted); !s.ok()) return s;
      tok->text = quoted.text;
      return absl::OkStatus();
    }
    while (IsValueChar(Peek())) BumpSameLine(1);
    tok->text = text_.substr(start + 1, pos_ - start - 1);
    if (tok->text.empty()) {
      tok->kind = Tok::kOther;
      tok->text = text_.substr(start, 1);
    }
    return absl::OkStatus();
  }
  if (IsAlpha(c) || (c == '#' && IsAlpha(Peek(1)))) {
    BumpSameLine(1);
    while (IsIdentChar(Peek())) BumpSameLine(1);
    tok->kind = Tok::kIdent;
    tok->text = text_.substr(start, pos_ - start);
    const std::string_view word = tok->text;
    if (Peek() == '<' && (c == '#' || word == "tensor" || word == "array" || word == "dense" ||
                          word == "complex" || word == "dense_resource")) {
      return LexAngled(tok);
    }
    return absl::OkStatus();
  }
  Bump();
  tok->text = text_.substr(start, 1);
  tok->kind = std::strchr("(){}[],=:<>*?", c) != nullptr && c != '\0' ? Tok::kPunct : Tok::kOther;
  return absl::OkStatus();
}

}  // namespace seam::stablehlo::syntax
