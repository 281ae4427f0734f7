# The two entry points of the README. Both do all the set-up they need.
CARGO ?= cargo
SHELL := /bin/bash
BIN := target/release/lighthouse

.PHONY: demo test setup build lint bench clean

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --release --workspace

# The main job: rotornet-8 on the native ToRs, a scripted session.
demo: build
	$(BIN) run topologies/rotornet-8.json --script scripts/demo.lh

# The whole test suite (as root: the emulation tests make namespaces).
# Its closing lines count the P4 tests that ran (scripts/test-summary.sh);
# where the toolchain is required (scripts/check-p4.sh) none ran is a failure.
TEST_LOG := target/test.log
test: setup lint
	@bash scripts/setup-p4.sh || true
	@bash scripts/check-p4.sh
	@mkdir -p target; set -o pipefail; \
	$(CARGO) test --release --workspace --no-fail-fast -- --test-threads=1 2>&1 | tee $(TEST_LOG); \
	bash scripts/test-summary.sh $(TEST_LOG) $$?

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

clean:
	-$(BIN) clean
	$(CARGO) clean
