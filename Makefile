# Front door: `make` builds, `make demo` runs the main job, `make test` runs every test.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all build demo test test-asan clean format

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main job, for now: check and benchmark the CPU arithmetic on this machine.
demo: build
	$(BUILD)/cuzk bench-arith --quick

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan:
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DCZ_SANITIZE=ON
	cmake --build $(BUILD)-asan -j $(JOBS)
	cd $(BUILD)-asan && CZ_TEST_ITERS=$${CZ_TEST_ITERS:-200} ctest --output-on-failure -j $(JOBS)

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD) $(BUILD)-asan
