// Where a call was made: the file and line of a seam::sync() or a host read, named in the
// recompilation messages (docs/frontend.md, "Recompilations"). It does what
// SourceLocation does for seam's purposes, but builds with clang 14 and Debian's
// libstdc++ 12 too (that pair lacks the builtin SourceLocation needs):
// __builtin_FILE and __builtin_LINE, as default arguments, give the caller's position in
// both g++ and clang.
#ifndef SEAM_SOURCE_LOCATION_H_
#define SEAM_SOURCE_LOCATION_H_

namespace seam {

class SourceLocation {
 public:
  // The position of the expression that calls current() (through default arguments: the
  // caller of the function whose parameter defaults to SourceLocation::current()).
  static constexpr SourceLocation current(const char* file = __builtin_FILE(),
                                          unsigned line = __builtin_LINE()) noexcept {
    return SourceLocation(file, line);
  }

  constexpr SourceLocation() noexcept = default;
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr unsigned line() const noexcept { return line_; }

 private:
  constexpr SourceLocation(const char* file, unsigned line) noexcept : file_(file), line_(line) {}
  const char* file_ = "";
  unsigned line_ = 0;
};

}  // namespace seam

#endif  // SEAM_SOURCE_LOCATION_H_
