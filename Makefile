# The two entry points of the README. Both do all the set-up they need.
CARGO ?= cargo
SHELL := /bin/bash
BIN := target/release/lighthouse

.PHONY: demo test setup build lint bench clean vm-test

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
# Then the Python API's pytest suite in .venv (scripts/test-python.sh,
# docs/python.md); its count is the last line.
TEST_LOG := target/test.log
PYTEST_LOG := target/pytest.log
test: setup lint
	@bash scripts/setup-p4.sh || true
	@bash scripts/check-p4.sh
	@mkdir -p target; set -o pipefail; \
	$(CARGO) test --release --workspace --no-fail-fast -- --test-threads=1 2>&1 | tee $(TEST_LOG); \
	cargo_status=$$?; \
	bash scripts/test-python.sh $(PYTEST_LOG); py_status=$$?; \
	bash scripts/test-summary.sh $(TEST_LOG) $$cargo_status; status=$$?; \
	echo "python tests: $$(tail -n 1 $(PYTEST_LOG))"; \
	[ $$status -eq 0 ] && [ $$py_status -eq 0 ]

# The student VM's Debian 12 image (vagrant/build-box.sh) booted with plain
# qemu, KVM or else TCG, the release build handed in: the guest kernel's
# netem beside the data plane's with the same bounds, rotornet-8's pingall,
# lab 01's grader, Mininet's --switch ovsk refused, CPULimitedHost on cgroup
# v2 (vagrant/README.md). Root. Installs qemu and mmdebstrap
# (scripts/setup-vm.sh) and builds the image when it is missing or was made
# by another recipe. Not part of `test` (a student's `make test` inside the
# VM would boot a VM in it); CI runs it after `test` (.ci/run).
VM_DIR ?= /var/tmp/lighthouse-vm
vm-test: build
	@bash scripts/setup-vm.sh
	@[ "$$(cat $(VM_DIR)/recipe 2>/dev/null)" = "$$(sha256sum < vagrant/build-box.sh | cut -d' ' -f1)" ] \
	  || bash vagrant/build-box.sh --out $(VM_DIR)
	@bash scripts/vm-test.sh --out $(VM_DIR)

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

clean:
	-$(BIN) clean
	$(CARGO) clean
