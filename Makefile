# housectl: `make run` starts the controller, `make test` runs every test.
SWIFT ?= swift
CONFIG ?= config/house.yaml

.PHONY: run test build deps clean

deps:
	@./scripts/ensure-deps.sh

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) test

run: build
	$(SWIFT) run housectl serve --config $(CONFIG)

clean:
	rm -rf .build

# Runs the libgpiod backend against a gpio-sim chip in a qemu VM (see Tests/VM/README.md).
.PHONY: test-vm
test-vm:
	@./Tests/VM/run.sh
