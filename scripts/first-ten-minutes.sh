#!/usr/bin/env bash
# The first ten minutes of a newcomer, measured: from a fresh clone of this repository to a branch
# created through the command, its database answering SELECT 1 (README example 2, with the
# simulator's local PostgreSQL), and the branch seen in the simulator. Each
# step's time is printed; docs/performance.md keeps the figure. Only 127.0.0.1 is contacted (and npm's
# registry by `npm ci`, as for any newcomer).
#
#   bash scripts/first-ten-minutes.sh            # clones the committed HEAD of this repository
set -euo pipefail
set -m # background jobs in their own process group: the simulator and its children end together

repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
work=$(mktemp -d "${TMPDIR:-/tmp}/first-ten-minutes-XXXXXX")
sim_pid=
cleanup() {
  if [ -n "$sim_pid" ]; then kill -TERM -- "-$sim_pid" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

started=$(date +%s.%N)
last=$started
step() {
  local now
  now=$(date +%s.%N)
  printf '%-58s %6.1fs  (total %6.1fs)\n' "$1" "$(echo "$now - $last" | bc)" "$(echo "$now - $started" | bc)"
  last=$now
}

git clone --quiet "$repo" "$work/neon-operations-wait-action"
cd "$work/neon-operations-wait-action"
step 'git clone'

npm ci --no-audit --no-fund --loglevel=error >"$work/npm-ci.log" 2>&1 || {
  cat "$work/npm-ci.log"
  exit 1
}
step 'npm ci'

npm run simulator -- --database >"$work/simulator.log" 2>&1 &
sim_pid=$!
until grep -q '^PostgreSQL at ' "$work/simulator.log"; do
  kill -0 "$sim_pid" 2>/dev/null || {
    cat "$work/simulator.log"
    exit 1
  }
  sleep 0.1
done
step 'npm run simulator -- --database (background, until ready)'

# The lines it prints to paste.
eval "$(grep '^  export ' "$work/simulator.log")"
json=$(node dist/cli/index.js --request 'POST /projects/{project_id}/branches' \
  --body '{"endpoints":[{"type":"read_write"}]}' --database-url response --json --progress none)
branch=$(node -e 'console.log(JSON.parse(process.argv[1]).branch_id)' "$json")
status=$(node -e 'console.log(JSON.parse(process.argv[1]).status)' "$json")
ready=$(node -e 'console.log(JSON.parse(process.argv[1]).database_ready)' "$json")
step "create a branch, wait, SELECT 1 ($status, ready $ready)"

seen=$(curl -sSf -H "Authorization: Bearer $NEON_API_KEY" \
  "$NEON_API_HOST/projects/$NEON_PROJECT_ID/branches/$branch")
node -e 'const b = JSON.parse(process.argv[1]).branch; if (!b?.id) process.exit(1);
  console.log(`the simulator has ${b.id} (${b.name})`)' "$seen"
step 'seen in the simulator (GET the branch)'
[ "$status" = finished ] && [ "$ready" = true ] || exit 1
