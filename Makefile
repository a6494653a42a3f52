# epochcost: `make run` launches the desktop app, `make test` runs lint and the tests
# (`make test-fast`: the tests without the slow tier).
# Both create .venv and install the project into it when needed, and the Debian packages
# Qt needs (when run as root and they are missing).

VENV    := .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.epochcost-installed
EXTRAS  := torch,tensorflow,gui,dev
DEB_PKGS := fonts-dejavu-core libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-cursor0 \
            libxcb-shape0 libxcb-xinerama0 libxcb-randr0 libxcb-xkb1 libxkbcommon-x11-0 \
            libegl1 libgl1 libfontconfig1 libdbus-1-3 xvfb xauth chromium

# SkyPilot in its own environment (engine/envs/cloud_env.py): the user's data folder for
# `make run`; for `make test` (its tests run the real SkyPilot) one in the user's cache folder,
# shared by every checkout as uv's and mypy's caches are, under a key of the code that makes it
# (engine/envs/): a change there makes a new one, through that code. A fresh clone keeps it
# (its check 2.7 s) instead of making it (23 s of the 2 cores; benchmarks/RESULTS.md, issue 42).
# Its Python's path goes into .venv (CLOUD_STAMP), where the tests read it (tests/engine/
# cloud_helpers.py); another key's environment unused for 14 days is removed.
CACHE_HOME  := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)
CLOUD_KEY   := $(firstword $(shell cat engine/envs/*.py | cksum))
TEST_HOMES  := $(CACHE_HOME)/epochcost
DEV_HOME    := $(TEST_HOMES)/test-cloud-$(CLOUD_KEY)
CLOUD_STAMP := $(VENV)/.epochcost-cloud-python
TEST_CLOUD_PYTHON := $(DEV_HOME)/envs/cloud/bin/python

.PHONY: run test test-fast lint compiled deb-deps venv cloud-env bundle bundle-smoke bundle-slim bundle-slim-smoke gpu-env gpu-check clean

venv: $(STAMP)

# The install is uv's (`uv pip install`, about 5 s from uv's cache against pip's 80 s, which
# downloads every time: benchmarks/RESULTS.md, issue 42); pip installs when uv cannot.
# UV_NATIVE_TLS: uv trusts the system's certificates, as pip does (a TLS-inspecting proxy).
# --compile-bytecode: the .pyc files pip writes and uv does not. Where Python writes none
# (PYTHONDONTWRITEBYTECODE, as on the CI machine) every process compiled torch from source
# as it imported it: `import torch, torch._dynamo` 7.1-7.3 s against 3.2-4.6 s, and a fresh
# clone's pytest 1,071 s against 632 s in a checkout that had them (benchmarks/RESULTS.md).
UV_INSTALL := UV_NATIVE_TLS=1 $(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY)

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet uv
	$(UV_INSTALL) -e '.[$(EXTRAS)]' || $(PY) -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $(STAMP)

cloud-env: $(STAMP)
	$(VENV)/bin/epochcost env create --cloud

$(TEST_CLOUD_PYTHON): | $(STAMP)
	EPOCHCOST_HOME=$(DEV_HOME) $(VENV)/bin/epochcost env create --cloud
	-find $(TEST_HOMES) -maxdepth 1 -name 'test-cloud-*' ! -name 'test-cloud-$(CLOUD_KEY)' \
	  -mtime +14 -exec rm -rf {} +

$(CLOUD_STAMP): $(TEST_CLOUD_PYTHON)
	touch $(DEV_HOME)
	echo $(TEST_CLOUD_PYTHON) > $(CLOUD_STAMP)

deb-deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian packages: $$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "missing Debian packages (install them as root): $$missing"; \
	  fi; \
	fi

# Without a display (a server, a container) the app runs on a virtual screen (Xvfb).
run: $(STAMP) deb-deps cloud-env
	@if [ "$$(uname)" = Linux ] && [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ] && command -v xvfb-run >/dev/null; then \
	  echo "no DISPLAY: starting epochcost-gui under xvfb-run (a virtual screen)"; \
	  xvfb-run -a $(VENV)/bin/epochcost-gui; \
	else \
	  $(VENV)/bin/epochcost-gui; \
	fi

# mypy's cache in the user's cache folder, shared by every checkout: a fresh clone's check 0.3 s
# against 12.3 s (one run each). mypy keys it by module and checks each file's hash where the
# path or time differs, so another checkout's entries hold only for the same source.
MYPY_CACHE := $(CACHE_HOME)/epochcost/mypy

lint: $(STAMP)
	$(VENV)/bin/ruff check engine gui tests benchmarks
	$(VENV)/bin/ruff format --check engine gui tests benchmarks
	$(VENV)/bin/mypy --cache-dir $(MYPY_CACHE) engine gui
	$(VENV)/bin/lint-imports

# Three test processes (pytest-xdist) on the two-core machine: with two, a core idled while a
# test waited (a server's start, a timeout, a sleep): the CPU 92-93% busy over a run against
# 98.6% with three; pytest 509 and 450 s against 436 s, alternating (benchmarks/RESULTS.md,
# issue 42).
# `make test` runs every test (.ci/run runs it); `make test-fast` leaves out the slow tier
# (tests/slow_tests.txt: each 4 s or more) and the lint, for the inner loop; the quickest tier,
# no process started: pytest -m "not worker and not tensorflow".
PYTEST := EPOCHCOST_CLOUD_PYTHON=$(TEST_CLOUD_PYTHON) QT_QPA_PLATFORM=offscreen $(PY) -m pytest -n 3

# The project's own modules compiled once: where Python writes no .pyc (PYTHONDONTWRITEBYTECODE,
# as on the CI machine) each of the suite's few hundred processes compiled what it imported
# from source (pytest 419 s against 433 s, summed test time 812 s against 833 s; one run each,
# benchmarks/RESULTS.md, issue 42). A changed file's .pyc is stale and Python compiles it again.
# The tests' assertion-rewritten modules too: pytest reads its cached rewrite wherever it finds
# one, but writes none where Python writes no .pyc, so every test process rewrote all 280 test
# files as it collected them (collection 9.6 s against 5.3 s with the cache; one process, two
# runs each). One collection with .pyc writing on leaves them.
COLLECT_LOG := $(VENV)/.epochcost-collect.log
compiled: $(STAMP)
	$(PY) -m compileall -q -j 0 engine gui tests
	@env -u PYTHONDONTWRITEBYTECODE QT_QPA_PLATFORM=offscreen $(PY) -m pytest --collect-only -qq \
	  -p no:cacheprovider > $(COLLECT_LOG) 2>&1 || { cat $(COLLECT_LOG); exit 1; }

# The lint (15 s, mostly mypy) runs beside the cloud environment's making (25 s on a fresh
# clone) and the compiling: 48.8 s for the first two against 62.8 s one after the other (one
# run each, quiet).
test: $(STAMP) deb-deps
	$(MAKE) --no-print-directory -j2 --output-sync=target lint $(CLOUD_STAMP) compiled
	$(PYTEST)

test-fast: $(STAMP) $(CLOUD_STAMP) deb-deps compiled
	$(PYTEST) -m "not slow"

# The desktop bundle (docs/bundle.md): PyInstaller (pyproject's `bundle` extra) into
# .venv, then build.spec -> dist/epochcost/, one folder with the executable epochcost-gui.
BUNDLE_STAMP := $(VENV)/.epochcost-bundle-installed

$(BUNDLE_STAMP): $(STAMP)
	$(UV_INSTALL) -e '.[$(EXTRAS),bundle]' || $(PY) -m pip install --quiet -e '.[$(EXTRAS),bundle]'
	touch $(BUNDLE_STAMP)

bundle: $(BUNDLE_STAMP) deb-deps
	@start=$$(date +%s); \
	$(PY) -m PyInstaller --noconfirm --clean --log-level WARN build.spec || exit 1; \
	echo "built dist/epochcost in $$(( $$(date +%s) - start )) s, $$(du -sh dist/epochcost | cut -f1)"

# The slim bundle (docs/bundle.md): the app and the command line without any framework, into
# dist/epochcost-slim/; `epochcost env create` makes the framework environment the GPU needs.
bundle-slim: $(BUNDLE_STAMP) deb-deps
	@start=$$(date +%s); \
	EPOCHCOST_BUNDLE=slim $(PY) -m PyInstaller --noconfirm --clean --log-level WARN build.spec || exit 1; \
	echo "built dist/epochcost-slim in $$(( $$(date +%s) - start )) s, $$(du -sh dist/epochcost-slim | cut -f1)"

# The slim bundle under `env -i`: makes a PyTorch environment with the machine's python3 and
# measures tiny-mlp in it (tests/bundle/test_slim_bundle.py).
bundle-slim-smoke: $(STAMP) deb-deps
	@test -x dist/epochcost-slim/epochcost || { echo "no slim bundle: run make bundle-slim first"; exit 1; }
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest tests/bundle/test_slim_bundle.py -v

# The built bundle, headless, through one short real run and a chart export (tests/bundle).
bundle-smoke: $(STAMP) deb-deps
	@test -x dist/epochcost/epochcost-gui || { echo "no bundle in dist/epochcost: run make bundle first"; exit 1; }
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest tests/bundle -v

# The PyTorch environment this machine's GPU and driver need (GTX 10xx, P100, V100: torch 2.7.1
# with CUDA 12.6), made under the data folder and chosen for PyTorch runs (docs/gpus.md).
gpu-env: $(STAMP)
	$(VENV)/bin/epochcost env create --framework torch

# Every GPU path on this machine's NVIDIA GPU(s), each a real run judged by its result: fp32,
# fp16, bf16, compile, CUDA timers against the wall clock, NVML memory/power/energy, an OOM,
# a max-fit sweep, MFU, TensorFlow on the GPU, --nproc over NCCL (docs/scaling.md). Writes
# gpu-check.json; says "no GPU here" and exits 0 on a machine without one.
gpu-check: $(STAMP)
	$(PY) benchmarks/gpu_check.py --out gpu-check.json

clean:
	rm -rf build dist tests/output
