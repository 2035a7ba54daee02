# housectl: `make run` starts the controller, `make test` runs every test.
SWIFT ?= swift
CONFIG ?= config/house.yaml
NODE ?= pi-main
GPIO ?= sim

.PHONY: run test build deps clean bench soak fuzz fuzz-ci

# System packages, and the community grammar (home-assistant-intents from PyPI, pinned) into
# .cache/intents: without it the controller runs on its own phrases only, so a failed fetch warns.
deps:
	@./scripts/ensure-deps.sh
	@./scripts/intents-data.sh > /dev/null || echo "make: warning: no community grammar (scripts/intents-data.sh failed); our own phrases only"

build: deps
	$(SWIFT) build

# Every test: the Swift tests (unit, in-process end to end, real mosquitto, short fault
# scenarios, the release-build broker under hostile clients), phrase understanding against
# Home Assistant's hassil on the community grammar in English, German and French (Tests/Grammar),
# the HomeKit bridge paired with aiohomekit, Home Assistant's HomeKit controller (Tests/HomeKit),
# the page in a real browser (headless chromium), the tests that draw or schedule days again on a Saturday and a Sunday
# (Tests/Weekend), each libFuzzer target briefly on its committed seeds, then the libgpiod
# backend against a kernel gpio-sim chip in a VM (about 2 minutes from a cold cache). One after
# the other: the VM's input checks have windows of 100 ms, which fuzzers beside it could miss.
test: deps
	SWIFT=$(SWIFT) ./scripts/release-build.sh --product housectl
	SWIFT=$(SWIFT) ./scripts/swift-test.sh
	@./Tests/Grammar/run.sh
	@./Tests/HomeKit/run.sh
	@./Tests/Browser/run.sh
	@./Tests/Weekend/run.sh
	fuzz/run.sh 10 --ci
	@./Tests/VM/run.sh

# The page at phone and desktop width, each tab, into docs/screenshots (README shows one).
.PHONY: screenshots
screenshots: deps
	SWIFT=$(SWIFT) ./scripts/release-build.sh --product housectl
	@./Tests/Browser/run.sh --screenshots docs/screenshots

# The example house on this machine: embedded MQTT broker on 127.0.0.1:1883, simulated relays.
run: build
	$(SWIFT) run housectl serve --config $(CONFIG) --node $(NODE) --gpio $(GPIO)

clean:
	rm -rf .build

# Runs the libgpiod backend against a gpio-sim chip in a qemu VM (see Tests/VM/README.md).
.PHONY: test-vm
test-vm:
	@./Tests/VM/run.sh

# The example house against a real Home Assistant (Tests/HA/README.md): installs homeassistant
# from PyPI into .cache/ha/venv once (Python 3.13, about 6 minutes); not part of `make test`.
.PHONY: test-ha
test-ha: deps
	@./Tests/HA/run.sh

# The Eclipse Paho interoperability tests (MQTT 5 and 3.1.1) against `housectl broker`, from a
# checkout the user provides: PAHO_DIR=/path/to/paho.mqtt.testing make test-paho (Tests/Paho/README.md);
# not part of `make test`. PAHO_BROKER=mosquitto runs them against mosquitto with the same tuning.
.PHONY: test-paho
test-paho: deps
	$(SWIFT) build --product housectl
	@HOUSECTL=$${HOUSECTL:-.build/debug/housectl} ./Tests/Paho/run.sh $(if $(filter mosquitto,$(PAHO_BROKER)),--mosquitto,)

# Benchmarks against the peers (mosquitto, hassil, amqtt) in one run; see docs/BENCHMARKS.md.
bench: deps
	@./bench/run.sh

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
