# OceanCode — make help lists the targets.
GO        ?= go
BIN       ?= bin
FUZZTIME  ?= 20s
BENCHTIME ?= 1s
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/oceancode/oceancode/internal/version.Version=$(VERSION)
# Pure Go: no glibc, no cgo threads. go-landlock's psx then uses the
# runtime's own AllThreadsSyscall, and the binaries stay static and lean
# (measured: 38 MiB → 19 MiB peak RSS for oceancode version).
export CGO_ENABLED := 0

# The packages whose code runs goroutines (the session store and lease, the
# model client and its companion, the egress proxy, the sandbox runner, the
# tools' output pumps, the approvals and the read tracker, schema's cache),
# the CLI's recorder and run in-process, and the early start of the model
# client. cmd/clitest (the CLI as processes, 7 minutes under the detector)
# is left to RACE_PKGS='./cmd/clitest' make race: its concurrency is the
# same code cmd/oceancode/cli runs in-process. -short skips only the sandbox's
# re-runs of its attack suite with the Go helper and in a nested sandbox
# (TestGoHelperFallback, nested_test.go), which make test runs in full.
RACE_PKGS ?= ./agent/provider/... ./agent/session ./agent/sandbox/... ./agent/tools ./agent/fsguard \
	./agent/permission ./agent/gate ./agent/runner ./agent/server/... ./agent/pager ./agent/jev ./agent ./agent/mcp/... ./internal/telemetry/... \
	./schema ./cmd/oceancode/cli ./internal/prestart

.PHONY: help build test test-load race demo bench bench-compare fuzz lint tools clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

tools: ## check Go is installed and fetch the Go modules
	@command -v $(GO) >/dev/null || { echo "Go is missing: install Go 1.26 from https://go.dev/dl/ and put it on PATH."; exit 1; }
	@$(GO) mod download

build: tools ## build bin/oceancode (+ its model client, sandbox helpers and pager) and bin/oceanadmin (installs gcc with apt when missing and root)
	@mkdir -p $(BIN)
	@scripts/ensure-tool.sh cc gcc libc6-dev
	scripts/build-exec-helper.sh $(BIN)/oceancode-sandbox-exec
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/oceancode ./cmd/oceancode
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/oceancode-model ./cmd/oceancode-model
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/oceancode-sandbox ./cmd/oceancode-sandbox
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/oceancode-pager ./cmd/oceancode-pager
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/oceanadmin ./cmd/oceanadmin
	$(GO) build -trimpath -o $(BIN)/mockmodel ./internal/cmd/mockmodel

test: tools ## run every test; as root, under a deployed policy and a poisoned, read-only HOME (scripts/test-with-policy.sh; PLAIN=1: without). Installs bubblewrap, gcc for the sandbox's C exec helper, tmux for the pager's terminal tests, and rpm, ruby and puppet, which read the generated policy artefacts, with apt when missing and root
	@if [ -x scripts/install-bwrap.sh ]; then scripts/install-bwrap.sh; fi
	@scripts/ensure-tool.sh cc gcc libc6-dev
	@scripts/ensure-tool.sh tmux tmux
	@scripts/ensure-tool.sh rpm rpm
	@scripts/ensure-tool.sh ruby ruby
	@scripts/ensure-tool.sh puppet puppet
	@if [ -z "$(PLAIN)" ] && [ "$$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then \
		scripts/test-with-policy.sh -count=1 -timeout 30m ./...; \
	else \
		echo "make test: the suite runs without a deployed policy (scripts/test-with-policy.sh needs root and unshare -m)"; \
		$(GO) test -count=1 -timeout 30m ./...; \
	fi

test-load: ## make test with four CPU-bound processes running beside it (no test may depend on timing)
	@scripts/test-load.sh 4

race: tools ## run the tests of the packages with concurrency under the race detector (cgo: installs gcc with apt when missing and root)
	@scripts/ensure-tool.sh cc gcc libc6-dev
	@scripts/ensure-tool.sh tmux tmux
	@if [ -x scripts/install-bwrap.sh ]; then scripts/install-bwrap.sh; fi
	CGO_ENABLED=1 $(GO) test -race -short -count=1 -timeout 30m $(RACE_PKGS)

demo: build ## the main job end to end: sign a policy, layer configs, inspect, tamper, roll back, a headless run
	@scripts/demo.sh $(BIN)

bench: build ## run the benchmarks recorded in docs/benchmarks.md
	OCEANCODE_HELPER=$(CURDIR)/$(BIN)/oceancode-sandbox OCEANCODE_EXEC_HELPER=$(CURDIR)/$(BIN)/oceancode-sandbox-exec $(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

bench-compare: tools ## REF=<commit> [ROUNDS=15]: --version, inspect, one turn, a ten-call turn, an MCP call, the pager's first frame, whole process, against REF, interleaved (medians, ratios)
	@test -n "$(REF)" || { echo "bench-compare: name the commit to compare with: make bench-compare REF=<commit>"; exit 2; }
	@command -v python3 >/dev/null || { echo "bench-compare: python3 is missing: apt-get install python3"; exit 1; }
	@python3 scripts/bench-compare.py $(REF) $(or $(ROUNDS),15)

fuzz: tools ## run every fuzz target for FUZZTIME each
	@scripts/fuzz.sh $(FUZZTIME)

lint: tools ## gofmt, go vet (here, and cross-built for macOS and Windows), go.mod tidy
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@# The OS-native managed sources are build-tagged (layers/osmanaged_*.go):
	@# every change must still build and vet where they run.
	GOOS=darwin $(GO) build ./... && GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) build ./... && GOOS=windows $(GO) vet ./...
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run 'go mod tidy' and commit the result"; exit 1; }

clean: ## remove build output
	rm -rf $(BIN)
