# syntax=docker/dockerfile:1
# One image per service:
#   docker build --build-arg SERVICE=auth -t bidradar/auth .
# SERVICE is one of: gateway auth projects interests subscription notification realtime.
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
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    if [ "$SERVICE" = "gateway" ]; then pkg=./gateway/cmd/gateway; else pkg=./services/$SERVICE/cmd/$SERVICE; fi && \
    go build -trimpath -ldflags="-s -w" -o /out/$SERVICE "$pkg" && \
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
