// Which sanitizer a build runs under, the same way for g++ (which defines
// __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__) and clang (which answers __has_feature):
// SEAM_ASAN is 1 under AddressSanitizer, SEAM_TSAN under ThreadSanitizer, else 0.
#ifndef SEAM_BASE_SANITIZERS_H_
#define SEAM_BASE_SANITIZERS_H_

#if defined(__SANITIZE_ADDRESS__)
#define SEAM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SEAM_ASAN 1
#endif
#endif
#ifndef SEAM_ASAN
#define SEAM_ASAN 0
#endif

#if defined(__SANITIZE_THREAD__)
#define SEAM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SEAM_TSAN 1
#endif
#endif
#ifndef SEAM_TSAN
#define SEAM_TSAN 0
#endif

#endif  // SEAM_BASE_SANITIZERS_H_
