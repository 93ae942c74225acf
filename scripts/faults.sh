#!/usr/bin/env bash
# The fault test at a larger size (docs/architecture.md#beyond-one-machine):
# starts the cluster of `make run-cluster` (stack/cluster) in a temporary
# folder, drives FAULTS_USERS users for FAULTS_SECONDS while SIGKILLing
# FAULTS_KILLS processes (a NATS node, a service process and the PostgreSQL
# replica first, then any but the primary and the gateway) at random
# moments, then checks that no write was lost or doubled, every notification
# is in the bell once with unread = rows, every alert came within 60 s and
# no call failed except one in flight at a kill that succeeded on one retry.
# CI runs the same test small (3 users, 40 s, 6 kills) in `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
export FAULTS_USERS=${FAULTS_USERS:-10} FAULTS_SECONDS=${FAULTS_SECONDS:-180} FAULTS_KILLS=${FAULTS_KILLS:-20}
exec go test -count=1 -v -timeout 30m -run '^TestFaults$' ./stack/cluster
