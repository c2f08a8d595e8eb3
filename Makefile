# The README's two commands: `make run` and `make test`. Each sets up what it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# llama.cpp must not be built with -march=native: that uses Intel AMX here and
# crashes on any prompt longer than one token. The AVX-512/VNNI kernels are
# switched on one by one when the CPU has them (prompts read 1.6x faster on
# this machine: 105 against 65 tokens/s for the 1.5B model); AMX never is.
# pip caches a built wheel whatever CMAKE_ARGS were, hence --no-cache-dir.
CPU_FLAGS := $(shell cat /proc/cpuinfo 2>/dev/null | grep -m1 '^flags')
LLAMA_CPU_ARGS := $(if $(filter avx512f,$(CPU_FLAGS)),-DGGML_AVX512=ON) \
	$(if $(filter avx512_vnni,$(CPU_FLAGS)),-DGGML_AVX512_VNNI=ON) \
	$(if $(filter avx512_bf16,$(CPU_FLAGS)),-DGGML_AVX512_BF16=ON) \
	$(if $(filter avx_vnni,$(CPU_FLAGS)),-DGGML_AVX_VNNI=ON)
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF $(strip $(LLAMA_CPU_ARGS))
LLAMA_PIN := llama-cpp-python[server]==0.3.36

.PHONY: run test install clean

# Ingest the bundled abstracts (idempotent), then serve the chat UI on
# http://127.0.0.1:7860 with the embedded local model.
run: $(STAMP)
	$(BIN)/paper-assistant ingest
	$(BIN)/paper-assistant ui

# Lint and type-check first (seconds), then the tests (minutes).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install --quiet --no-cache-dir "$(LLAMA_PIN)"
	$(BIN)/python -m pip install --quiet -e '.[test,local]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) storage/chroma storage/models
