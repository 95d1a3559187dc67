// A shared library that is not a plugin: it lacks GetPjrtApi.
extern "C" __attribute__((visibility("default"))) int NotTheEntryPoint(void) { return 42; }
