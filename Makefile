# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Debian packages WeasyPrint needs: Pango for layout, HarfBuzz's subsetter so fonts are
# subset in C (fast, byte-reproducible) instead of by fontTools; poppler-utils to look at PDFs.
# fonts-wqy-microhei: names in Chinese, Japanese and Korean print (fontconfig falls back to it).
DEBS := libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core fonts-wqy-microhei poppler-utils
# The browser tests drive Debian's chromium with Playwright (no browser download: none works here);
# the store's tests start a throwaway PostgreSQL server (a cluster in a temporary folder, a Unix socket).
# Handwriting faces (Debian's fonts, each a person's hand): the character network learns from
# the first (make model); the second are writers it never sees, read by the tests and bench/writers.py.
LEARN_DEBS := fonts-bwht fonts-comic-neue fonts-breip fonts-dkg-handwriting fonts-klee fonts-rufscript \
  fonts-tomsontalks fonts-seto fonts-kiloji fonts-linex fonts-fantasque-sans fonts-staypuft fonts-havana \
  fonts-leckerli-one fonts-lobster
HELD_OUT_DEBS := fonts-bwht fonts-dancingscript fonts-kaushanscript fonts-humor-sans fonts-kristi fonts-ecolier-court
TEST_DEBS := chromium postgresql $(HELD_OUT_DEBS)

AXE := $(VENV)/axe/node_modules/axe-core/axe.min.js

.PHONY: demo test check system system-test debs bench clean fonts messages docs screenshots model

# The main job: a class of 30 worksheets and answer keys, with their manifest, in output/.
demo: $(VENV)/.installed
	$(BIN)/attnsheet generate --count 30 --seed 2026 --out output --force

test: $(VENV)/.installed-test $(AXE)
	$(BIN)/ruff check generator tests bench
	$(BIN)/ruff format --check --quiet generator tests bench
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	$(BIN)/python -m pytest

# The quick subset, for a one-line change: no browser, no PostgreSQL, nothing slow (at most about two
# minutes here); `make test` stays the whole suite and CI's command.
check: $(VENV)/.installed-test
	$(BIN)/ruff check generator tests bench
	$(BIN)/ruff format --check --quiet generator tests bench
	$(BIN)/python -m pytest -q -m "not browser and not postgres and not slow" -p no:cacheprovider

# The documentation site (mkdocs.yml) into site/: the pages' generated blocks (each command's --help,
# the kinds' folders) refreshed from the code first; tests/cli/test_docs.py fails while one is stale.
COGGED = $(shell grep -rl '\[\[\[cog' docs --include=*.md)
docs: $(VENV)/.installed-test
	$(BIN)/cog -r $(COGGED)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The guides' screenshots, taken by the browser test that checks the guides show them.
screenshots: $(VENV)/.installed-test
	ATTNSHEET_SHOTS=docs/img $(BIN)/python -m pytest -q tests/web/test_browser_docs.py

bench: $(VENV)/.installed-test
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[test,bench]'
	$(BIN)/python bench/run.py

# The character network's weights (generator/scan/model.npz, committed): about half an hour on two cores.
model: $(VENV)/.installed-test
	@$(MAKE) -s debs PACKAGES="$(LEARN_DEBS)"
	$(BIN)/python -m generator.scan.train

# Installs the Debian packages above when running as root and any is missing; otherwise says
# what is missing and goes on (WeasyPrint then fails with its own message if Pango is absent).
system:
	@$(MAKE) -s debs PACKAGES="$(DEBS)"

system-test:
	@$(MAKE) -s debs PACKAGES="$(DEBS) $(TEST_DEBS)"

debs:
	@missing=""; for p in $(PACKAGES); do \
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

# An editable install compiles no bytecode, and where PYTHONDONTWRITEBYTECODE is set Python
# never will: every process (each job too) would compile the package again, ~40 ms each.
$(VENV)/.installed: pyproject.toml constraints.txt | $(VENV)/bin/python system
	$(BIN)/python -m pip install -q -c constraints.txt -e .
	$(BIN)/python -m compileall -q generator
	touch $@

$(VENV)/.installed-test: pyproject.toml constraints.txt | $(VENV)/bin/python system-test
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[test]'
	$(BIN)/python -m compileall -q generator
	touch $(VENV)/.installed $@

# axe-core, the accessibility checker the browser tests run in every page (tests/web/test_browser_a11y.py),
# from npm (Debian's npm where the machine has none).
AXE_VERSION := 4.14.1
$(AXE): | $(VENV)/bin/python
	@command -v npm >/dev/null || $(MAKE) -s debs PACKAGES=npm
	npm install --silent --no-audit --no-fund --prefix $(VENV)/axe axe-core@$(AXE_VERSION)

clean:
	rm -rf $(VENV) build dist *.egg-info

# The bundled fonts: OFL-licensed Inter (text) and Noto Sans Mono (matrices), subset to what the
# sheets use (Latin-1 and Latin Extended-A for names and Spanish, and the maths signs). Needs
# Debian's fonts-inter and fonts-noto-mono; the results are committed, so builds never run it.
FONT_CHARS := U+0020-007E,U+00A0-017F,U+2212,U+2044,U+221A,U+03A3,U+2190-2193,U+00B7,U+00D7,U+2248,U+2264,U+2265,U+1D40,U+2013,U+2014,U+2026,U+2018-201F,U+2022,U+2007,U+2009,U+202F,U+2460-2468
fonts: $(VENV)/.installed
	for spec in "/usr/share/fonts/opentype/inter/Inter-Regular.otf:Inter-Regular" \
	            "/usr/share/fonts/opentype/inter/Inter-SemiBold.otf:Inter-SemiBold" \
	            "/usr/share/fonts/truetype/noto/NotoSansMono-Regular.ttf:NotoSansMono-Regular" \
	            "/usr/share/fonts/truetype/noto/NotoSansMono-Bold.ttf:NotoSansMono-Bold"; do \
	  src=$${spec%%:*}; name=$${spec##*:}; ext=$${src##*.}; \
	  $(BIN)/pyftsubset "$$src" --unicodes="$(FONT_CHARS)" --layout-features='kern,tnum,lnum,frac,case' \
	    --no-hinting --desubroutinize --name-IDs='*' --output-file=templates/fonts/$$name.subset.$$ext; \
	done

# Refresh the message template from the templates and generator/sheet/, and merge it into every
# catalog; then translate what is new (the tests fail while a catalog has an empty entry).
messages: $(VENV)/.installed
	$(BIN)/pybabel extract -F babel.cfg -k _ -k gettext -k N_ -k Setting:3 --no-location --sort-output --omit-header \
	  -o templates/locale/attnsheet.pot .
	for po in templates/locale/*/LC_MESSAGES/attnsheet.po; do \
	  $(BIN)/pybabel update --no-fuzzy-matching -i templates/locale/attnsheet.pot -o $$po \
	    -l $$(basename $$(dirname $$(dirname $$po))) -D attnsheet; done
