# syntax=docker/dockerfile:1
# One image per service:
#   docker build --build-arg SERVICE=auth -t bidradar/auth .
# SERVICE is one of: gateway auth projects interests subscription notification realtime teams market.
# The binary is /app/$SERVICE (subcommands "serve", the default, and "migrate");
# the gateway image also carries the built frontend in /app/web.
ARG SERVICE

# --- frontend (only built for the gateway; an empty dist for the others) ---
FROM node:20 AS web
ARG SERVICE
WORKDIR /frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN if [ "$SERVICE" = "gateway" ]; then npm ci --no-audit --no-fund; fi
COPY frontend/ ./
RUN if [ "$SERVICE" = "gateway" ]; then npm run build; else rm -rf dist && mkdir dist; fi

# --- Go binary (built in the go.work workspace at the repo root) ---
FROM golang:1.26 AS build
ARG SERVICE
RUN test -n "$SERVICE" || (echo "build with --build-arg SERVICE=<name>" >&2; exit 1)
WORKDIR /src
ENV CGO_ENABLED=0
# Dependencies first, in a layer of their own that only a change of go.work or
# of a go.mod/go.sum invalidates: every module that go.work uses
# (deploy/manifests_test.go checks this list against go.work).
COPY go.work go.work.sum ./
COPY deploy/go.mod deploy/go.sum deploy/
COPY gateway/go.mod gateway/go.sum gateway/
COPY bench/load/go.mod bench/load/go.sum bench/load/
COPY gen/go.mod gen/go.sum gen/
COPY pkg/go.mod pkg/go.sum pkg/
COPY services/auth/go.mod services/auth/go.sum services/auth/
COPY services/interests/go.mod services/interests/go.sum services/interests/
COPY services/market/go.mod services/market/go.sum services/market/
COPY services/notification/go.mod services/notification/go.sum services/notification/
COPY services/projects/go.mod services/projects/go.sum services/projects/
COPY services/realtime/go.mod services/realtime/go.sum services/realtime/
COPY services/subscription/go.mod services/subscription/go.sum services/subscription/
COPY services/teams/go.mod services/teams/go.sum services/teams/
COPY stack/go.mod stack/go.sum stack/
# No cache mount here: the modules belong in this layer. (A cache mount on
# /go/pkg/mod in the build step would hide them.)
RUN go mod download
COPY . .
# scripts/go-build holds the flags (static, -trimpath, -ldflags="-s -w");
# `make build-binaries` builds with the same script.
RUN --mount=type=cache,target=/root/.cache/go-build \
    if [ "$SERVICE" = "gateway" ]; then pkg=./gateway/cmd/gateway; else pkg=./services/$SERVICE/cmd/$SERVICE; fi && \
    sh scripts/go-build /out/$SERVICE "$pkg" && \
    ln -s "$SERVICE" /out/service

# --- runtime ---
FROM gcr.io/distroless/static-debian12:nonroot
ARG SERVICE
WORKDIR /app
# /app/$SERVICE plus the symlink /app/service -> $SERVICE (ENTRYPOINT below).
COPY --from=build /out/ /app/
COPY --from=web /frontend/dist /app/web
ENV WEB_DIR=/app/web
USER 65532:65532
# The exec form cannot expand $SERVICE, so the entrypoint is the fixed-name
# symlink to /app/$SERVICE (distroless has no shell). The Kubernetes manifests
# call /app/<svc> explicitly: command ["/app/<svc>"], args ["serve"|"migrate"].
ENTRYPOINT ["/app/service"]
CMD ["serve"]
