# Thin wrapper around CMake. `make demo` and `make test` install what is missing first.
BUILD      ?= build
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?= -DCMAKE_BUILD_TYPE=Release -DSCALETUNE_WERROR=ON
# Open MPI refuses root unless told; more ranks than cores need --oversubscribe.
MPIRUN     ?= mpirun $(if $(filter 0,$(shell id -u)),--allow-run-as-root) --oversubscribe
# make fuzz: a clang build of the libFuzzer targets only (tests/fuzz), each run FUZZ_SECONDS.
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 20
FUZZ_ARGS    ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCALETUNE_WERROR=ON -DSCALETUNE_FUZZ=ON \
                -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSCALETUNE_ENABLE_CUDA=OFF \
                -DSCALETUNE_ENABLE_TESTS=OFF -DSCALETUNE_CHECK_HEADERS=OFF
DEMO_JOB   := jobs/resnet50-cpu.toml
DEMO_OUT   := results/resnet50-cpu.h5

.PHONY: all deps configure build demo test test-sanitize test-sanitize-full fuzz bench format clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The demo builds only the executable; it replaces its own previous result file (scaletune
# itself never overwrites one).
demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target scaletune
	rm -f $(DEMO_OUT)
	$(MPIRUN) -np 2 $(BUILD)/scaletune run $(DEMO_JOB) --out $(DEMO_OUT)
	$(BUILD)/scaletune autotune $(DEMO_OUT) --report results/resnet50-cpu.md

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer build in build-sanitize/ (README "Sanitizers"):
# every unit and MPI test and a subset of the end-to-end tests; -full runs every one.
test-sanitize: deps
	JOBS=$(JOBS) bash scripts/test-sanitize.sh ci

test-sanitize-full: deps
	JOBS=$(JOBS) bash scripts/test-sanitize.sh full

# Every fuzz target for FUZZ_SECONDS (scripts/run-fuzz.sh); findings go to $(FUZZ_BUILD)/fuzz/.
fuzz:
	@bash scripts/install-deps.sh fuzz
	cmake -S . -B $(FUZZ_BUILD) $(FUZZ_ARGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	bash scripts/run-fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	OPENBLAS_NUM_THREADS=1 $(BUILD)/bench/bench_conv --benchmark_repetitions=5
	$(MPIRUN) -np 2 $(BUILD)/bench/mpi_bench_collectives
	$(BUILD)/bench/bench_embedding_bag --benchmark_repetitions=3

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp' '*.cu')

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
