#!/bin/sh
# End-to-end check of the CLI as a user runs it, from a fresh root with no
# controller running: reuse, rebuild, replace, exec streams and exit
# statuses, concurrent creates, rm, quit. Needs bubblewrap.
#   sh testdata/cli_acceptance.sh path/to/sandboxdesk
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export LANG=en_US.UTF-8
if ! command -v bwrap >/dev/null 2>&1; then
	echo "acceptance: skipped, bubblewrap is not installed"
	exit 0
fi
ROOT=$(mktemp -d)
passed=0 failed=0
sd() { "$BIN" --root "$ROOT" "$@"; }
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
check() { if [ "$2" = "$3" ]; then ok; else fail "$1: got '$2', want '$3'"; fi; }
field() { sed -n "s/^  \"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" | head -n 1; }
cleanup() { "$BIN" quit --root "$ROOT" >/dev/null 2>&1; rm -rf "$ROOT"; }
trap cleanup EXIT

# reuse: 2 GiB, then 256 MiB -> same sandbox (a controller is started on the way)
id1=$(sd create w --memory 2GiB --json 2>"$ROOT.err" | field id)
grep -q "started one" "$ROOT.err" && ok || fail "no word on stderr about starting a controller"
id2=$(sd create w --memory 256MiB --json | field id)
check "256 MiB after 2 GiB reuses" "$id2" "$id1"
sd exec w -- sh -c 'echo kept > /workspace/file.txt'
id3=$(sd create w --memory 4GiB --json | field id)
[ -n "$id3" ] && [ "$id3" != "$id1" ] && ok || fail "4 GiB after 2 GiB did not rebuild ($id3)"
check "workspace file after rebuild" "$(sd exec w -- cat /workspace/file.txt)" "kept"
id4=$(sd create w --replace --json | field id)
[ "$id4" != "$id3" ] && ok || fail "replace kept the id"
check "workspace after replace" "$(sd exec w -- ls -A /workspace | wc -l | tr -d ' ')" "0"

# list --json: one sandbox, with the documented fields
list=$(sd list --json)
check "sandboxes listed" "$(printf '%s\n' "$list" | grep -c '"name":')" "1"
for f in name id state image backend createdAt idleTimeoutMs maxLifetimeMs stopGraceMs memoryMiB cpus diskMiB network; do
	printf '%s\n' "$list" | grep -q "\"$f\":" && ok || fail "list --json lacks $f"
done

# network: outbound only unless the host's is asked for, and then shown
check "default network" "$(sd inspect w --json | field network)" "on"
check "host network asked" "$(sd create hostnet --network host --json | field network)" "host"
case $(sd inspect hostnet) in *"host (shares the host's network"*) ok ;; *) fail "inspect does not flag the host network" ;; esac
sd rm hostnet >/dev/null
err=$(sd create n --network bridge 2>&1 >/dev/null); code=$?
check "bad network status" "$code" "2"
check "bad network lines" "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" "1"

# exec: exit status, stdin, 100 MiB intact
sd exec w -- sh -c 'exit 7'
check "exec exit status" "$?" "7"
check "exec stdin" "$(echo hello | sd exec w -- cat)" "hello"
big=$ROOT.big
head -c 104857600 /dev/urandom >"$big"
want=$(sha256sum <"$big" | cut -d' ' -f1)
got=$(sd exec w -- cat <"$big" | sha256sum | cut -d' ' -f1)
check "100 MiB through exec" "$got" "$want"
rm -f "$big"

# two CLIs creating one name at once get one sandbox
sd create twin --json >"$ROOT.a" &
sd create twin --json >"$ROOT.b" &
wait
check "concurrent creates" "$(field id <"$ROOT.a")" "$(field id <"$ROOT.b")"
rm -f "$ROOT.a" "$ROOT.b"

# rm: something, then nothing; both succeed
out=$(sd rm w); check "rm status" "$?" "0"
case $out in *removed*) ok ;; *) fail "rm said '$out'" ;; esac
out=$(sd rm w); check "second rm status" "$?" "0"
case $out in *"nothing to remove"*) ok ;; *) fail "second rm said '$out'" ;; esac

# bad input: one line, status 2, nothing changed
err=$(sd create "Bad Name" 2>&1 >/dev/null); code=$?
check "bad name status" "$code" "2"
check "bad name lines" "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" "1"

# a second controller on a held root refuses, naming the holder
err=$(sd serve 2>&1); code=$?
check "second serve status" "$code" "1"
case $err in *"in use by sandboxdesk pid"*) ok ;; *) fail "second serve said '$err'" ;; esac

# two CLIs on a fresh root, both starting a controller: one wins, both work
ROOT2=$(mktemp -d)
"$BIN" --root "$ROOT2" create pair --json >"$ROOT2.a" 2>/dev/null &
"$BIN" --root "$ROOT2" create pair --json >"$ROOT2.b" 2>/dev/null &
wait
check "concurrent creates on a fresh root" "$(field id <"$ROOT2.a")" "$(field id <"$ROOT2.b")"
[ -n "$(field id <"$ROOT2.a")" ] && ok || fail "no sandbox from concurrent creates on a fresh root"
"$BIN" --root "$ROOT2" quit >/dev/null 2>&1
rm -rf "$ROOT2" "$ROOT2.a" "$ROOT2.b"

# bwraps_of ROOT counts the bwrap processes of that root's sandboxes
bwraps_of() {
	n=0
	for pid in $(pgrep -x bwrap); do
		cmdline=$( (tr '\0' ' ' <"/proc/$pid/cmdline") 2>/dev/null) || continue
		for id in $(ls "$1/sandboxes"); do
			case $cmdline in *"/sandboxes/$id/"*) n=$((n + 1)) ;; esac
		done
	done
	echo "$n"
}

# SIGTERM stops `serve` and its sandboxes gracefully
ROOT3=$(mktemp -d)
"$BIN" --root "$ROOT3" serve 2>/dev/null &
spid=$!
for _ in $(seq 100); do [ -S "$ROOT3/control.sock" ] && break; sleep 0.1; done
"$BIN" --root "$ROOT3" create t >/dev/null
kill -TERM "$spid"
wait "$spid"
check "serve status after SIGTERM" "$?" "0"
check "bwrap processes left after SIGTERM" "$(bwraps_of "$ROOT3")" "0"
rm -rf "$ROOT3"

# quit stops the sandboxes: no bwrap of this root is left
sd quit >/dev/null
check "quit status" "$?" "0"
check "bwrap processes left after quit" "$(bwraps_of "$ROOT")" "0"
# the next controller finds the database consistent, and starts again what
# quit stopped: twin is restored
state=$(sd inspect twin --json 2>/dev/null | field state)
for _ in $(seq 100); do [ "$state" = running ] && break; sleep 0.1; state=$(sd inspect twin --json 2>/dev/null | field state); done
check "state after quit and a new controller" "$state" "running"

echo "acceptance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
