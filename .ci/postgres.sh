#!/usr/bin/env bash
# Installs PostgreSQL 15 with pgvector from Debian's packages and starts a throwaway cluster.
# Prints the DATABASE_URL to use on its last line of stdout.
# Debian bookworm has no postgresql-15-pgvector binary package; when apt cannot find it we
# build Debian's own pgvector source package (from trixie) against postgresql-server-dev-15.
set -euo pipefail
PGPORT="${PGPORT:-54329}"
PGDATA_DIR="${PGDATA_DIR:-/tmp/loupe-ci-pg}"
PGBIN=/usr/lib/postgresql/15/bin
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
log() { echo "[postgres] $*" >&2; }

apt_updated=""

# The URI of the machine's configured Debian archive for its own release: the first deb822
# "URIs:" whose stanza lists the release's codename, or the first one-line "deb" entry for it.
debian_mirror() {
  local codename
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  {
    for f in /etc/apt/sources.list.d/*.sources; do
      if [ -f "$f" ]; then awk -v c="$codename" 'BEGIN{RS=""} { u=""; ok=0; n=split($0, L, "\n"); for (i=1;i<=n;i++) { if (L[i] ~ /^URIs:/) { split(L[i], w, /[ \t]+/); u=w[2] } if (L[i] ~ /^Suites:/ && (" " L[i] " ") ~ (" " c " ")) ok=1 } if (ok && u != "") print u }' "$f"; fi
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      if [ -f "$f" ]; then awk -v c="$codename" '$1 == "deb" { for (i=2;i<=NF;i++) if ($i !~ /^\[/) { if ($(i+1) == c) print $i; break } }' "$f"; fi
    done
  } | { grep -v -- '-security' || true; } | head -n 1
}
apt_install() {
  [ -n "$apt_updated" ] || { $SUDO apt-get update -qq >&2; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >&2
}

if [ ! -x "$PGBIN/pg_ctl" ]; then
  log "installing postgresql-15"
  apt_install postgresql-15 postgresql-contrib
fi

if [ ! -f /usr/share/postgresql/15/extension/vector.control ]; then
  if apt-cache show postgresql-15-pgvector >/dev/null 2>&1 || { [ -z "$apt_updated" ] && $SUDO apt-get update -qq >&2 && apt_updated=1 && apt-cache show postgresql-15-pgvector >/dev/null 2>&1; }; then
    log "installing postgresql-15-pgvector"
    apt_install postgresql-15-pgvector
  else
    log "postgresql-15-pgvector is not packaged for this release; building Debian's pgvector source package"
    src_list=/etc/apt/sources.list.d/loupe-trixie-src.sources
    if [ ! -f "$src_list" ]; then
      # The same Debian mirror the machine already uses for its own release (no host named here).
      mirror="$(debian_mirror)"
      [ -n "$mirror" ] || { log "no Debian mirror found in the machine's apt sources"; exit 1; }
      log "source packages from trixie on $mirror"
      printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror" | $SUDO tee "$src_list" >/dev/null
      $SUDO apt-get update -qq >&2
    fi
    apt_install postgresql-server-dev-15 make gcc dpkg-dev
    work=$(mktemp -d)
    (cd "$work" && apt-get source --download-only pgvector >&2 && tar xzf pgvector_*.orig.tar.gz && cd pgvector-*/ \
      && make -s PG_CONFIG=$PGBIN/pg_config >&2 && $SUDO make -s install PG_CONFIG=$PGBIN/pg_config >&2)
    rm -rf "$work"
  fi
fi

# initdb refuses to run as root; the cluster belongs to the postgres user.
RUNAS=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home /var/lib/postgresql postgres
  RUNAS=(runuser -u postgres --)
fi
if [ -f "$PGDATA_DIR/postmaster.pid" ]; then
  "${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast stop >&2 || true
fi
rm -rf "$PGDATA_DIR"
mkdir -p "$PGDATA_DIR"
[ "$(id -u)" -eq 0 ] && chown postgres "$PGDATA_DIR"
"${RUNAS[@]}" "$PGBIN/initdb" -D "$PGDATA_DIR" -U loupe --auth=trust -E UTF8 >/dev/null
"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$PGDATA_DIR/server.log" -w \
  -o "-p $PGPORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >&2
"$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U loupe -d postgres -qc "CREATE DATABASE loupe" >&2
"$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U loupe -d loupe -qc "CREATE EXTENSION IF NOT EXISTS vector" >&2
log "PostgreSQL $("$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U loupe -d loupe -tAc "SELECT current_setting('server_version') || ', pgvector ' || extversion FROM pg_extension WHERE extname = 'vector'") on port $PGPORT"
echo "postgres://loupe@127.0.0.1:$PGPORT/loupe"
