# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Debian packages WeasyPrint needs: Pango for layout, HarfBuzz's subsetter so fonts are
# subset in C (fast, byte-reproducible) instead of by fontTools; poppler-utils to look at PDFs.
DEBS := libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core poppler-utils

.PHONY: demo test system bench clean

demo: $(VENV)/.installed
	$(BIN)/attnsheet solve generator/examples/classic.json

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-test
	$(BIN)/python bench/run.py

# Installs the Debian packages above when running as root and any is missing; otherwise says
# what is missing and goes on (WeasyPrint then fails with its own message if Pango is absent).
system:
	@missing=""; for p in $(DEBS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else \
	  echo "warning: missing Debian packages (install them as root):$$missing" >&2; \
	fi

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/python system
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python system
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(VENV)/.installed $@

clean:
	rm -rf $(VENV) build dist *.egg-info
