# Front door (README.md, "Two commands"):
#
#   make demo     install the build's Debian packages when missing
#                 (scripts/deps.sh), configure, build the cuzk binary, then
#                 prove and verify the PoRep C2 of a synthetic 2 KiB sector
#                 (development parameters made once in $(BUILD)/params)
#   make test     the same packages plus Node.js and npm, the pinned test
#                 oracles (npm ci in tests/oracle), build everything, run
#                 every test (ctest; the GPU tests skip without a device)
#   make          install the build's packages when missing, build everything
#   make test-asan   the tests under AddressSanitizer + UBSan ($(BUILD)-asan)
#   make install  cuzk, an example configuration and a systemd unit under
#                 $(DESTDIR)$(PREFIX) (see README.md, "Run as a service")
#   make format   clang-format every C, header and CUDA file
#   make clean    remove $(BUILD) and $(BUILD)-asan (the parameters too)
#
# DEPS=0 skips scripts/deps.sh (you install the packages yourself).
# A configure that fails leaves no half-configured $(BUILD): its cache is
# removed, so the next make configures again (after you install what the
# error names). The parameters in $(BUILD)/params are kept.
BUILD ?= build
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local
DEPS ?= 1
CMAKE_ARGS ?=

.PHONY: all build cuzk configure deps oracle demo test test-asan install format clean

all: build

# What deps.sh installs: build (default) or, for the tests, test.
DEPS_KIND = build
test test-asan: DEPS_KIND = test

deps:
ifneq ($(DEPS),0)
	@bash scripts/deps.sh $(DEPS_KIND)
endif

# configure DIR ARGS [REDIRECT]: cmake, then the stamp; on failure, remove
# what a next run would mistake for a configured tree.
define configure
	cmake -S . -B $(1) $(2) $(CMAKE_ARGS) $(3) || { \
	  rm -f $(1)/CMakeCache.txt $(1)/CMakeFiles/cuzk-configured; \
	  echo "make: configure failed (see above); $(1) was reset, so the next make starts over" >&2; \
	  exit 1; }; \
	touch $(1)/CMakeFiles/cuzk-configured
endef

$(BUILD)/CMakeFiles/cuzk-configured: | deps
	$(call configure,$(BUILD),-DCMAKE_BUILD_TYPE=Release)

configure: $(BUILD)/CMakeFiles/cuzk-configured

build: configure
	cmake --build $(BUILD) -j $(JOBS)

cuzk: configure
	cmake --build $(BUILD) -j $(JOBS) --target cuzk

demo: cuzk
	$(BUILD)/cuzk demo --params-dir $(BUILD)/params

# The pinned npm packages of tests/oracle (package-lock.json), installed
# again only when the lock file changes.
ORACLE_STAMP = tests/oracle/node_modules/.package-lock.json
oracle: | deps
	@if ! command -v npm >/dev/null; then \
	  echo "oracle: npm not found; the tests that need Node will report skipped"; \
	elif [ ! -f $(ORACLE_STAMP) ] || [ tests/oracle/package-lock.json -nt $(ORACLE_STAMP) ]; then \
	  echo "oracle: npm ci in tests/oracle"; \
	  cd tests/oracle && npm ci --no-audit --no-fund; \
	fi

# Configured again first: a Node installed since the first configure (make
# demo does not install it) must be found by the daemon tests.
test: configure oracle
	@$(call configure,$(BUILD),,> /dev/null)
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer, less the
# 2 KiB PoRep proofs (label porep2k: their arithmetic is covered by the smaller
# Groth16 tests, and a sanitized 2^22-point setup would take most of an hour).
test-asan: oracle
	$(call configure,$(BUILD)-asan,-DCMAKE_BUILD_TYPE=Debug -DCZ_SANITIZE=ON)
	cmake --build $(BUILD)-asan -j $(JOBS)
	cd $(BUILD)-asan && CZ_TEST_ITERS=$${CZ_TEST_ITERS:-200} ctest --output-on-failure -j $(JOBS) -LE porep2k

# Configured with the prefix, so that the unit's paths and /etc (for
# PREFIX=/usr) follow it.
install: configure
	@$(call configure,$(BUILD),-DCMAKE_INSTALL_PREFIX=$(PREFIX),> /dev/null)
	cmake --build $(BUILD) -j $(JOBS) --target cuzk
	DESTDIR=$(DESTDIR) cmake --install $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD) $(BUILD)-asan
