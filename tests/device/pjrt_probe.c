/* pjrt_probe PLUGIN.so: what a PJRT plugin reports before anything is called, read with no
 * header at all (the first fields of PJRT_Api have had the same layout in every major-0
 * version): the version it was built with, its table's struct_size and how many function
 * slots that size covers. Calls no function of the table. Part of the device check
 * (scripts/device-check.sh), so that a plugin newer than seam's header shows its size gap.
 * Exit status: 0, or 1 when the library or its GetPjrtApi cannot be found. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The opening of PJRT_Api: struct_size, extension_start, then the version struct
 * (struct_size, extension_start, major, minor); the function slots follow it. */
struct ProbeVersion {
  size_t struct_size;
  void* extension_start;
  int major_version;
  int minor_version;
};
struct ProbeApi {
  size_t struct_size;
  void* extension_start;
  struct ProbeVersion version;
};

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: pjrt_probe PLUGIN.so\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    fprintf(stderr, "pjrt_probe: cannot open %s: %s\n", argv[1], dlerror());
    return 1;
  }
  void* symbol = dlsym(library, "GetPjrtApi");
  if (symbol == NULL) {
    fprintf(stderr, "pjrt_probe: GetPjrtApi not found in %s\n", argv[1]);
    return 1;
  }
  const struct ProbeApi* (*get_api)(void) = (const struct ProbeApi* (*)(void))(uintptr_t)symbol;
  const struct ProbeApi* api = get_api();
  if (api == NULL) {
    fprintf(stderr, "pjrt_probe: GetPjrtApi returned NULL in %s\n", argv[1]);
    return 1;
  }
  const size_t first_slot = sizeof(struct ProbeApi);
  const size_t slots =
      api->struct_size > first_slot ? (api->struct_size - first_slot) / sizeof(void (*)(void)) : 0;
  printf("plugin            %s\n", argv[1]);
  printf("pjrt_api_version  %d.%d\n", api->version.major_version, api->version.minor_version);
  printf("PJRT_Api.struct_size  %zu bytes (%zu function slots)\n", api->struct_size, slots);
  printf("extension chain   %s\n", api->extension_start == NULL ? "none" : "present");
  return 0;
}
