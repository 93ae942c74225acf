BUF := frontend/node_modules/.bin/buf
PLUGINS := protoc-gen-go protoc-gen-go-grpc protoc-gen-connect-go protoc-gen-grpc-gateway protoc-gen-openapiv2

$(BUF):
	cd frontend && npm ci --no-audit --no-fund

.PHONY: tools
tools: $(BUF) ## Build the pinned protoc plugins (tools/go.mod) into bin/
	cd tools && GOWORK=off go build -o ../bin/ $$(GOWORK=off go list -f '{{.ImportPath}}' tool)

.PHONY: generate
generate: tools ## Regenerate Go, TypeScript and OpenAPI code from proto/
	$(BUF) lint
	find gen -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
	rm -rf frontend/src/gen
	$(BUF) generate
	cd gen && GOWORK=off go build ./...
