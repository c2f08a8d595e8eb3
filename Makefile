# The README's two commands: `make run` and `make test`. Each sets up what it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# llama.cpp must not be built for the build machine's CPU: the native build
# uses Intel AMX here and crashes on any prompt longer than one token. pip
# caches a built wheel whatever CMAKE_ARGS were, hence --no-cache-dir.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF
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
