# The two entry points of the README. Both install what is missing, then build.
BUILD_DIR ?= build
SAN_BUILD_DIR ?= build-sanitize
TSAN_BUILD_DIR ?= build-tsan
FUZZ_BUILD_DIR ?= build-fuzz
# The sanitizer passes build with clang 14, the main build with g++ 12: CI proves both.
SAN_COMPILERS = -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
BUILD_TYPE ?= Release
JOBS ?= 2

.PHONY: demo test test-sanitize test-tsan test-fuzz fuzz build deps bench bench-deps clean device-bundle

# The main job: train an MLP on Fashion-MNIST, then print the test accuracy and the
# metrics report.
demo: build
	PJRT_DEVICE=$${PJRT_DEVICE:-CPU} ./$(BUILD_DIR)/examples/fashion_mnist

# The whole suite, then the plugin-ABI tests (loader, conformance) again under
# AddressSanitizer and UndefinedBehaviorSanitizer, then the concurrency tests under
# ThreadSanitizer.
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)
	$(MAKE) test-sanitize
	$(MAKE) test-tsan
	$(MAKE) test-fuzz

# It builds (with clang 14) only the tests labelled sanitize and what they load, and runs
# them; tests/lsan.supp says why libomp's blocks are not reported as leaks. The rest of the
# tree meets clang through the clang_tidy test, which parses src/, tools/ and examples/ with
# clang 14's front end (a compile error there is a finding).
test-sanitize: deps
	cmake -S . -B $(SAN_BUILD_DIR) -DCMAKE_BUILD_TYPE=Debug $(SAN_COMPILERS) "-DSEAM_SANITIZE=address;undefined"
	cmake --build $(SAN_BUILD_DIR) -j$(JOBS) --target seam_sanitize_tests
	cd $(SAN_BUILD_DIR) && LSAN_OPTIONS="suppressions=$(CURDIR)/tests/lsan.supp" \
	  ctest --output-on-failure -j$(JOBS) -L sanitize

# Products stay on one thread of OpenBLAS (not instrumented; oneDNN's OpenMP runtime is not
# used): tests/tsan.supp says why any report from those libraries is suppressed.
test-tsan: deps
	cmake -S . -B $(TSAN_BUILD_DIR) -DCMAKE_BUILD_TYPE=Debug $(SAN_COMPILERS) -DSEAM_SANITIZE=thread
	cmake --build $(TSAN_BUILD_DIR) -j$(JOBS) --target seam_tsan_tests
	cd $(TSAN_BUILD_DIR) && SEAM_CPU_GEMM=openblas OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
	  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  ctest --output-on-failure -j$(JOBS) -L tsan

# The IR fuzzer (clang, libFuzzer with ASan+UBSan, a build directory of its own): the
# committed corpus replayed and a fixed-seed run (test-fuzz), or open-ended (fuzz: stop it
# with Ctrl-C; new inputs go to $(FUZZ_BUILD_DIR)/tests/fuzz/fuzz-open).
FUZZ_CONFIG = -DCMAKE_BUILD_TYPE=Debug $(SAN_COMPILERS) "-DSEAM_SANITIZE=address;undefined" -DSEAM_FUZZ=ON
test-fuzz: deps
	cmake -S . -B $(FUZZ_BUILD_DIR) $(FUZZ_CONFIG)
	cmake --build $(FUZZ_BUILD_DIR) -j$(JOBS) --target ir_compile_fuzzer safetensors_fuzzer stablehlo_read_fuzzer
	cd $(FUZZ_BUILD_DIR) && ctest --output-on-failure -L fuzz

fuzz: deps
	cmake -S . -B $(FUZZ_BUILD_DIR) $(FUZZ_CONFIG)
	cmake --build $(FUZZ_BUILD_DIR) -j$(JOBS) --target ir_compile_fuzzer
	tests/fuzz/run_fuzzer.sh open $(FUZZ_BUILD_DIR)/tests/fuzz/ir_compile_fuzzer tests/fuzz/corpus $(FUZZ_BUILD_DIR)/tests/fuzz

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) -j$(JOBS)

deps:
	./scripts/install-deps.sh

# Issue 6's performance comparison: installs the libtorch/PyTorch peers (not part of
# `deps`, so CI stays lean), builds bench/ and runs every benchmark, then prints the tables
# that BENCHMARKS.md quotes (results under $(BUILD_DIR)/bench/results).
bench: deps bench-deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) -j$(JOBS) --target seam_benchmarks
	./bench/run_benchmarks.sh $(BUILD_DIR)

bench-deps:
	./scripts/install-bench-deps.sh

# What the device check (scripts/device-check.sh, on a lent GPU machine) runs: the programs,
# their libraries and the data, packed into $(BUILD_DIR)/device-bundle.tar.xz (at most 56 MiB).
device-bundle: build
	./scripts/device-bundle.sh $(BUILD_DIR) --data

clean:
	rm -rf $(BUILD_DIR) $(SAN_BUILD_DIR) $(TSAN_BUILD_DIR) $(FUZZ_BUILD_DIR)
