# Thin wrappers: every target goes through dev.py, which needs only python3 (≥ 3.11).
PYTHON ?= python3

.PHONY: verify test bench lint fuzz examples docs mutate
verify:
	$(PYTHON) dev.py verify
test:
	$(PYTHON) dev.py test
bench:
	$(PYTHON) dev.py bench
lint:
	$(PYTHON) dev.py lint
fuzz:
	$(PYTHON) dev.py fuzz
examples:
	$(PYTHON) dev.py examples
docs:
	$(PYTHON) dev.py docs

mutate:
	$(PYTHON) dev.py mutate
