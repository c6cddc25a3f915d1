# Convenience targets around CMake. Overrides:
#   BUILD_DIR=dir      build folder (default build)
#   CMAKE_ARGS="..."   extra configure flags, e.g. -DGBCUDA_CUDA=OFF
#   JOBS=n             build jobs (default: all cores); TEST_JOBS=n ctest jobs (default 2)
#   TEST_TIMEOUT=s     ctest's limit per test
#   NO_DEPS=1          skip the Debian package check (e.g. on the GPU host after `source .gpu/setup.sh`)
#   BENCH_ARGS="..."   extra flags for `make bench` (bfs_bench, e.g. --kernels all --sources 4) or
#                      `make algebra-bench` (algebra_bench, e.g. --cases spmv-f32,pagerank)
#   FUZZ_SECONDS=s     how long `make fuzz` fuzzes (default 60)
BUILD_DIR ?= build
CMAKE_ARGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_JOBS ?= 2
TEST_TIMEOUT ?= 1800
NO_DEPS ?=
BENCH_ARGS ?=
FUZZ_SECONDS ?= 60
CLANG_FORMAT ?= clang-format-14
FORMAT_DIRS := apps bench examples include lib tests

.PHONY: all deps configure build run test sanitize sanitize-address sanitize-thread fuzz bench algebra-bench format format-check clean

all: build

deps:
ifeq ($(NO_DEPS),)
	scripts/install-deps.sh
else
	@echo "make: NO_DEPS set; not checking the Debian packages"
endif

configure: deps
	cmake -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

# BFS on the bundled matrix (matrices/delaunay_n10.mtx), on the GPU when one is usable.
run: build
	$(BUILD_DIR)/bin/bfs_spmv

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(TEST_JOBS) --timeout $(TEST_TIMEOUT)

# The host-only build under the sanitizers (CI runs this after make test); any report fails the
# test that made it. A failed allocation returns null, as without the sanitizers, so the
# out-of-memory tests see the library report it.
sanitize: sanitize-address sanitize-thread

# AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/), every test; the differential
# test with a tenth of its cases (the sanitizers make each case several times slower).
sanitize-address:
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 GBCUDA_DIFF_CASES=20000 \
	  $(MAKE) test BUILD_DIR=build-sanitize \
	  CMAKE_ARGS="-DGBCUDA_CUDA=OFF -DGBCUDA_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)"

# ThreadSanitizer (build-tsan/): the tests labelled "threads" (tests/CMakeLists.txt: test_threads,
# test_ops and a few more; only they are built). With clang, so that OpenMP is LLVM's libomp: its
# Archer tool (libarcher, loaded by libomp itself in a program built with TSan) tells TSan how
# OpenMP orders things (fork, join, barriers, reductions), so the parallel loops are checked too.
# GCC's libgomp is not instrumented: TSan would report every parallel loop's workers as racing
# (OMP_NUM_THREADS=1 would silence that, but then no OpenMP region would be checked). Archer asks
# for ignore_noninstrumented_modules=1 (libomp's own accesses are not reported). GraphBLAS, the
# tests' reference, is bound to libomp's GOMP_* entry points, so it runs on the same runtime. A
# program that reported exits with 66, failing its test. Needs clang, its TSan runtime and libomp
# (scripts/debian-fuzz-tools.txt, which make fuzz needs too).
sanitize-thread:
ifeq ($(NO_DEPS),)
	scripts/install-deps.sh scripts/debian-build-tools.txt scripts/debian-packages.txt scripts/debian-fuzz-tools.txt
endif
	cmake -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DGBCUDA_CUDA=OFF \
	  -DGBCUDA_SANITIZE=thread -DGBCUDA_APPS=OFF -DGBCUDA_EXAMPLES=OFF $(CMAKE_ARGS)
	cmake --build build-tsan -j$(JOBS) --target threads_tests
	TSAN_OPTIONS="ignore_noninstrumented_modules=1 allocator_may_return_null=1 second_deadlock_stack=1" \
	  ctest --test-dir build-tsan -L threads --output-on-failure -j$(TEST_JOBS) --timeout $(TEST_TIMEOUT)

# The readers' fuzz target (tests/fuzz): a host-only clang build with libFuzzer, ASan and UBSan in
# build-fuzz/, fuzzing from the seed corpus for FUZZ_SECONDS; any crash or report fails (CI runs
# it). Installs clang and libFuzzer when missing.
fuzz:
ifeq ($(NO_DEPS),)
	scripts/install-deps.sh scripts/debian-fuzz-tools.txt
endif
	cmake -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DGBCUDA_CUDA=OFF \
	  -DGBCUDA_FUZZ=ON -DGBCUDA_FUZZ_SECONDS=$(FUZZ_SECONDS) -DGBCUDA_TESTS=OFF -DGBCUDA_APPS=OFF -DGBCUDA_EXAMPLES=OFF
	cmake --build build-fuzz -j$(JOBS)
	ctest --test-dir build-fuzz -L fuzz --output-on-failure

# The standard BFS suite (kron, urand, grid, randout) on the GPU with the baselines: the table on
# stdout, every number in $(BUILD_DIR)/bench.json (plot: scripts/plot_performance.py).
bench: build
	$(BUILD_DIR)/bin/bfs_bench --preset standard --json $(BUILD_DIR)/bench.json $(BENCH_ARGS)

# The algebra beside GraphBLAS and cuSPARSE (algebra_bench), every number in
# $(BUILD_DIR)/algebra-bench.json.
algebra-bench: build
	$(BUILD_DIR)/bin/algebra_bench --preset standard --json $(BUILD_DIR)/algebra-bench.json $(BENCH_ARGS)

# The C++ and CUDA sources under FORMAT_DIRS, git's tracked and untracked (not ignored) files:
# build folders and carried packages stay out.
FORMAT_FILES = git ls-files -z --cached --others --exclude-standard -- $(FORMAT_DIRS) | \
	  grep -zE '\.(hpp|cpp|h|cu|cuh)$$'

format:
	$(FORMAT_FILES) | xargs -0 $(CLANG_FORMAT) -i

# Fails on any file clang-format would change (CI runs it), naming each; `make format` fixes them.
format-check:
ifeq ($(NO_DEPS),)
	scripts/install-deps.sh scripts/debian-build-tools.txt
endif
	@$(CLANG_FORMAT) --version
	$(FORMAT_FILES) | xargs -0 $(CLANG_FORMAT) --dry-run -Werror

clean:
	rm -rf $(BUILD_DIR)
