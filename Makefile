# housectl: `make run` starts the controller, `make test` runs every test.
SWIFT ?= swift
CONFIG ?= config/house.yaml

.PHONY: run test build deps clean bench

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

# Benchmarks against the peers (mosquitto, hassil, amqtt) in one run; see docs/BENCHMARKS.md.
bench: deps
	@./bench/run.sh
