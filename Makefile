# The two entry points of the README. Both do all the set-up they need.
CARGO ?= cargo
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
test: setup lint
	$(CARGO) test --release --workspace -- --test-threads=1

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

clean:
	-$(BIN) clean
	$(CARGO) clean
