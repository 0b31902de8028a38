#!/usr/bin/env bash
# Runs the README's test command on another Node.js line, taken from the npm registry (the package
# "node@<major>"), with that node first on PATH so that npm, the test runner and every process the
# tests start use it. Usage: npm run test:node -- <major> [test file filters...]
set -euo pipefail
cd "$(dirname "$0")/.."
major="${1:-}"
case "$major" in ''|-h|--help) echo "usage: npm run test:node -- <Node.js major, e.g. 22 or 24> [test file filters...]" >&2; exit 2;; esac
shift
case "$major" in *[!0-9]*) echo "test:node: the Node.js major must be a number, e.g. 24 (got \"$major\")" >&2; exit 2;; esac
node_bin="$(dirname "$(npx -y -p "node@$major" -- node -e 'process.stdout.write(process.execPath)')")"
export PATH="$node_bin:$PATH"
started=$SECONDS
echo "== npm test on Node.js $(node --version)"
npm test -- "$@"
echo "== Node.js $(node --version): whole suite in $((SECONDS - started)) s"
