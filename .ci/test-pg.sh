#!/usr/bin/env bash
# npm run test:pg — the database suites (vitest project `database`, test/support/suites.ts) against a throwaway
# PostgreSQL 15 cluster (stopped on exit); the other suites open no database and run the same under `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash .ci/pg.sh start)"
trap 'bash .ci/pg.sh stop "$PG_TMP"' EXIT
TEST_DATABASE_URL="$TEST_DATABASE_URL" npx vitest run --project database "$@"
