#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 cluster on a private port and socket dir; prints its URL on stdout.
# Usage: eval "$(bash .ci/pg.sh start)"  -> sets PG_TMP and TEST_DATABASE_URL;  bash .ci/pg.sh stop "$PG_TMP"
set -euo pipefail
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
case "${1:-}" in
  start)
    tmp=$(mktemp -d /tmp/pmm-pg-XXXXXX)
    chown postgres "$tmp" 2>/dev/null || true
    port=${PG_PORT:-$(( 20000 + RANDOM % 20000 ))}
    run_as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }
    run_as_postgres "$PG_BIN/initdb -D $tmp/data -U postgres --auth=trust --no-sync -E UTF8 >$tmp/initdb.log 2>&1"
    run_as_postgres "$PG_BIN/pg_ctl -D $tmp/data -l $tmp/server.log -w -o \"-p $port -k $tmp -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200\" start >/dev/null"
    echo "export PG_TMP=$tmp"
    echo "export TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    tmp=${2:?usage: pg.sh stop DIR}
    if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$PG_BIN/pg_ctl -D $tmp/data -m fast stop >/dev/null 2>&1" || true
    else "$PG_BIN/pg_ctl" -D "$tmp/data" -m fast stop >/dev/null 2>&1 || true; fi
    rm -rf "$tmp"
    ;;
  *) echo "usage: pg.sh start|stop DIR" >&2; exit 2 ;;
esac
