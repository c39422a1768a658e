#!/bin/sh
# Runs the Go, TypeScript and Python clients' tests, the conformance
# scenario among them, against one real controller on a fresh root.
#   sh clients/test.sh path/to/sandboxdesk
# GO names the go command (default: go). Needs bubblewrap; a client whose
# toolchain is missing is skipped with a word saying which.
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
GO=${GO:-go}
HERE=$(cd "$(dirname "$0")" && pwd)
if ! command -v bwrap >/dev/null 2>&1; then
	echo "clients-test: skipped, bubblewrap is not installed"
	exit 0
fi
ROOT=$(mktemp -d)
cleanup() { "$BIN" quit --root "$ROOT" >/dev/null 2>&1; rm -rf "$ROOT"; }
trap cleanup EXIT INT TERM
export SANDBOXDESK_TEST_ROOT="$ROOT"
# the PATH's sandboxdesk is the one under test, for a client that starts one
PATH=$(dirname "$BIN"):$PATH
export PATH

# start the controller (the CLI starts serve for a root with none), and let
# every client's sandboxes run at once: the test files may run in parallel
"$BIN" --root "$ROOT" limits --at-once 8 >/dev/null || { echo "clients-test: the controller did not start" >&2; exit 1; }

failed=""
echo "== Go client (examples and conformance)"
(cd "$HERE/.." && "$GO" test -count=1 -tags migrated_fynedo ./sandboxes) || failed="$failed go"

echo "== TypeScript client"
if ! command -v node >/dev/null 2>&1; then
	echo "clients-test: TypeScript skipped, node is not installed (Node 18 or newer)"
elif [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 18 ]; then
	echo "clients-test: TypeScript skipped, node $(node --version) is older than 18"
else
	(cd "$HERE/typescript" && node --test test/) || failed="$failed typescript"
fi

echo "== Python client"
if ! command -v python3 >/dev/null 2>&1; then
	echo "clients-test: Python skipped, python3 is not installed (3.9 or newer)"
elif ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
	echo "clients-test: Python skipped, $(python3 --version) is older than 3.9"
else
	(cd "$HERE/python" && PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s tests -t .) || failed="$failed python"
fi

if [ -n "$failed" ]; then
	echo "clients-test: failed:$failed" >&2
	exit 1
fi
echo "clients-test: every client passed"
