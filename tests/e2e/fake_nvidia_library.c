/* Stands in for one of the NVIDIA libraries JAX's CUDA plugin package loads first
 * (plugin_discovery_test copies it to nvidia/cuda_runtime/lib/libcudart.so.12 in a fake
 * site-packages tree). Its one symbol is visible to later libraries only when it was
 * loaded with RTLD_GLOBAL. */
int seam_fake_nvidia_library(void) { return 12; }
