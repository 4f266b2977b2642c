#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the public index (issue 16): installs PostgreSQL from Debian's packages when it is
# missing, creates a cluster in a local directory with initdb, starts it with pg_ctl on a Unix socket in that
# directory and on a loopback port, and creates the database with the extensions the index uses.
#
#   scripts/public-db.sh start     # prints the database URL (postgres://…) on stdout
#   scripts/public-db.sh stop
#   scripts/public-db.sh restart   # stop and start the same cluster (tests use it: the service must reconnect)
#   scripts/public-db.sh url       # the URL of a running cluster
#   scripts/public-db.sh destroy   # stop and remove the directory
#
# Settings (environment): OPENSPOTLIGHT_PG_DIR (default .build-pg in the repository), OPENSPOTLIGHT_PG_PORT (default
# 54329), OPENSPOTLIGHT_PG_DATABASE (default openspotlight_public). As root, the cluster runs as Debian's `postgres`
# user (PostgreSQL refuses to run as root).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
dir=${OPENSPOTLIGHT_PG_DIR:-$repo/.build-pg}
port=${OPENSPOTLIGHT_PG_PORT:-54329}
database=${OPENSPOTLIGHT_PG_DATABASE:-openspotlight_public}
user=openspotlight

pg_bin() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    [ -n "$found" ] && [ -x "$found/initdb" ] && echo "$found"
}

install_postgres() {
    if [ -z "$(pg_bin)" ] || [ ! -f "$(ls -d /usr/share/postgresql/*/extension 2>/dev/null | sort -V | tail -1)/pg_trgm.control" ]; then
        # scripts/bootstrap.sh defines the one apt installer.
        source scripts/bootstrap.sh
        openspotlight_apt_install postgresql postgresql-contrib
    fi
}

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

url() {
    echo "postgres://$user@127.0.0.1:$port/$database?sslmode=disable"
}

start() {
    install_postgres
    local bin
    bin=$(pg_bin)
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_owner "$bin/initdb" -D "$dir/data" -U "$user" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
        cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 200
shared_buffers = 512MB
work_mem = 16MB
maintenance_work_mem = 512MB
fsync = on
synchronous_commit = on
EOF
    fi
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
            || { tail -20 "$dir/server.log" >&2; exit 1; }
    fi
    if ! "$bin/psql" -h "$dir" -p "$port" -U "$user" -d postgres -tAc "select 1 from pg_database where datname = '$database'" | grep -q 1; then
        "$bin/psql" -h "$dir" -p "$port" -U "$user" -d postgres -qc "create database $database" >/dev/null
    fi
    url
}

stop() {
    local bin
    bin=$(pg_bin) || return 0
    [ -f "$dir/data/PG_VERSION" ] || return 0
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

case "${1:-start}" in
    start) start ;;
    stop) stop ;;
    restart) stop; start >/dev/null; url ;;
    url) url ;;
    destroy) stop; rm -rf "$dir" ;;
    *) echo "usage: $0 start|stop|restart|url|destroy" >&2; exit 2 ;;
esac
