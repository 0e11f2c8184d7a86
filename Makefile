# Front door: `make` builds, `make demo` runs the main job, `make test` runs every test.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all build demo test test-asan clean format

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main job: PoRep C2 of a synthetic 2 KiB sector on the CPU (generate the
# C1 output, development parameters made once in $(BUILD)/params, prove,
# verify, timings).
demo: build
	$(BUILD)/cuzk demo --params-dir $(BUILD)/params

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer, less the
# 2 KiB PoRep proofs (label porep2k: their arithmetic is covered by the smaller
# Groth16 tests, and a sanitized 2^22-point setup would take most of an hour).
test-asan:
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DCZ_SANITIZE=ON
	cmake --build $(BUILD)-asan -j $(JOBS)
	cd $(BUILD)-asan && CZ_TEST_ITERS=$${CZ_TEST_ITERS:-200} ctest --output-on-failure -j $(JOBS) -LE porep2k

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD) $(BUILD)-asan
