# housectl: `make run` starts the controller, `make test` runs every test.
SWIFT ?= swift
CONFIG ?= config/house.yaml

.PHONY: run test build deps clean soak fuzz fuzz-ci

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

# Long fault scenarios (HOUSECTL_SOAK=1): counts from HOUSECTL_SOAK_COMMANDS / HOUSECTL_SOAK_ROUNDS.
SOAK_COMMANDS ?= 1000
SOAK_ROUNDS ?= 5
soak: deps
	$(SWIFT) build --build-tests
	HOUSECTL_SOAK=1 HOUSECTL_SOAK_COMMANDS=$(SOAK_COMMANDS) HOUSECTL_SOAK_ROUNDS=$(SOAK_ROUNDS) \
		$(SWIFT) test --skip-build --filter "Fault|KillDaemon" 2>&1 | tee .build/soak.log | grep -E "^SOAK|✘|passed after|failed after" ; \
		echo "--- soak counts ---"; grep -a "^SOAK" .build/soak.log; ! grep -aq "✘" .build/soak.log

# libFuzzer targets (fuzz/targets), FUZZ_SECONDS each; fuzz-ci: 10 s each on the committed seeds.
FUZZ_SECONDS ?= 60
fuzz: deps
	$(SWIFT) build
	fuzz/run.sh $(FUZZ_SECONDS)

fuzz-ci: deps
	$(SWIFT) build
	fuzz/run.sh 10 --ci
