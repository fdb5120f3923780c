#!/bin/sh
# `npm test` with every end-to-end process starting 1.5 s late, as on a busy machine: a test that
# depends on how soon a process starts fails here. Arguments go to jest (a file, -t NAME...).
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '#!/bin/sh\nsleep 1.5\nexec node "$@"\n' >"$dir/node"
chmod +x "$dir/node"
E2E_NODE="$dir/node" npm test -- "$@"
