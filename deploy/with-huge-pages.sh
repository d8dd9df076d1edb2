#!/bin/sh
# Runs a command (a Herald process, a benchmark) with transparent huge pages
# for its arrays: glibc's malloc tunable glibc.malloc.hugetlb=1 added after any
# tunables GLIBC_TUNABLES already holds (docs/operations.md, "Memory: huge
# pages"). Kept as it is when GLIBC_TUNABLES sets hugetlb already or
# HERALD_HUGE_PAGES=0. The same rule as core's withHugePages, for launchers
# that are shell: the npm scripts and deploy/local-cluster.sh.
#
#   deploy/with-huge-pages.sh node packages/cli/dist/main.js demo
if [ "${HERALD_HUGE_PAGES:-1}" != 0 ]; then
  case ":${GLIBC_TUNABLES:-}" in
    *:glibc.malloc.hugetlb=*) ;;
    *) GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1" && export GLIBC_TUNABLES ;;
  esac
fi
exec "$@"
