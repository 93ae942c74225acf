# BidRadar: `make run` starts the whole stack, `make test` runs every test.
SHELL := /bin/bash
BUF := frontend/node_modules/.bin/buf
GO_MODULES := $(shell go list -m -f '{{.Dir}}' 2>/dev/null)

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*?## "}{printf "  %-16s %s\n",$$1,$$2}'

.PHONY: run
run: frontend-build ## Run the whole stack on http://127.0.0.1:8080 (HTTP_ADDR overrides)
	go run ./stack/cmd/stack

.PHONY: run-cluster
run-cluster: frontend-build ## Run it as on several machines: PostgreSQL primary + replica, 3 NATS nodes, 2 processes of every service (.data/cluster)
	go build -o bin/cluster ./stack/cmd/cluster
	bin/cluster

.PHONY: test
test: ## Run every test: Go (unit, adapter, component, e2e), manifests, frontend unit + browser, generated-code drift
	bash scripts/test.sh

# npm ci refuses this lock here: the registry mirror has no darwin/win32 builds of
# @bufbuild/buf, so npm cannot record those optional packages. npm install then
# installs exactly the locked versions for this platform and leaves the lock as is.
frontend/node_modules/.package-lock.json: frontend/package-lock.json frontend/package.json
	cd frontend && { npm ci --no-audit --no-fund 2>/dev/null || npm install --no-audit --no-fund; }
	@touch $@

.PHONY: frontend-deps
frontend-deps: frontend/node_modules/.package-lock.json

.PHONY: frontend-build
frontend-build: frontend-deps ## Build the React app into frontend/dist
	cd frontend && npm run build

.PHONY: tools
tools: frontend-deps ## Build the pinned protoc plugins (tools/go.mod) into bin/
	cd tools && GOWORK=off go build -o ../bin/ $$(GOWORK=off go list -f '{{.ImportPath}}' tool)

.PHONY: generate
generate: tools ## Regenerate Go, TypeScript and OpenAPI code from proto/
	$(BUF) lint
	find gen -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
	rm -rf frontend/src/gen
	$(BUF) generate
	cd gen && GOWORK=off go build ./...

.PHONY: check-generate
check-generate: generate ## Fail when generated code differs from the protos
	@test -z "$$(git status --porcelain -- gen frontend/src/gen)" || { git status --porcelain -- gen frontend/src/gen; echo "generated code is stale: run make generate"; exit 1; }

.PHONY: events-doc
events-doc: ## Rewrite docs/events.md (events, producers, consumers) from the protos and the wired stack
	go test -count=1 ./stack -run '^TestEventsDoc$$' -update

# golangci-lint, pinned in tools/go.mod like the protoc plugins (`make tools`
# builds it too); rebuilt when the pin moves.
bin/golangci-lint: tools/go.mod tools/go.sum
	cd tools && GOWORK=off go build -o ../bin/ github.com/golangci/golangci-lint/v2/cmd/golangci-lint

.PHONY: lint
lint: bin/golangci-lint ## gofmt, go vet and golangci-lint (.golangci.yml: staticcheck, errcheck, unused, the layer rules) over every module
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'))" || { gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'); exit 1; }
	go vet $(addsuffix /...,$(GO_MODULES))
	bin/golangci-lint run $(addsuffix /...,$(GO_MODULES))

.PHONY: lint-check
lint-check: bin/golangci-lint ## Prove the layer rules bite: the linter must refuse each breach in scripts/lint-check's fixture service
	bash scripts/lint-check/check.sh

.PHONY: build-binaries
build-binaries: ## Build every service binary as the images do (scripts/go-build) into a temp dir, then remove it
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  sh scripts/go-build "$$tmp/" ./gateway/cmd/gateway ./services/*/cmd/*

.PHONY: bench-login
bench-login: ## Burst of 500 logins against a running stack (see bench/README.md)
	go run ./stack/cmd/loginbench

.PHONY: clean
clean: ## Remove build output and local data
	rm -rf bin frontend/dist .data
