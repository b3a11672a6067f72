#!/usr/bin/env bash
# npm run test:pg — the whole suite against a throwaway PostgreSQL 15 cluster (stopped on exit).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash .ci/pg.sh start)"
trap 'bash .ci/pg.sh stop "$PG_TMP"' EXIT
TEST_DATABASE_URL="$TEST_DATABASE_URL" npx vitest run "$@"
