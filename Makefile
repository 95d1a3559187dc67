# The two entry points of the README. Both install what is missing, then build.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= 2

.PHONY: demo test build deps clean

demo: build
	PJRT_DEVICE=$${PJRT_DEVICE:-CPU} ./$(BUILD_DIR)/examples/lazy_step

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) -j$(JOBS)

deps:
	./scripts/install-deps.sh

clean:
	rm -rf $(BUILD_DIR)
