#!/bin/sh
# End-to-end check of the CLI as a user runs it, from a fresh root with no
# controller running: reuse, rebuild, replace, exec streams and exit
# statuses, concurrent creates, rm, quit, and the command line without
# its controller program. Needs bubblewrap.
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
for f in name id state image backend createdAt idleTimeoutMs maxLifetimeMs stopGraceMs memoryMiB cpus diskMiB network pids; do
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

# nested user namespaces: refused unless asked for, then allowed and shown
sd exec w -- unshare -U -r id -u >/dev/null 2>&1 && fail "a default sandbox made a user namespace" || ok
check "nested userns asked" "$(sd create nest --nested-userns --json | field nestedUserns)" "true"
check "nested userns inside" "$(sd exec nest -- unshare -U -r id -u 2>&1)" "0"
case $(sd inspect nest) in *"Nested user namespaces"*allowed*) ok ;; *) fail "inspect does not show nested user namespaces" ;; esac
case $(sd inspect w) in *"Nested user namespaces"*) fail "inspect shows nested user namespaces on a default sandbox" ;; *) ok ;; esac
sd rm nest >/dev/null

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

# exec ends with its command, whatever stdin does: a pipe nobody closes
# (`sleep 1000 | sandboxdesk exec w -- true`), a terminal nobody types into.
# returns_within N CMD... runs CMD in the background and reports whether it
# ended within N seconds (a hang, not a slow machine); then it is killed.
returns_within() {
	limit=$1; shift
	"$@" & rp=$!
	for _ in $(seq $((limit * 10))); do
		kill -0 "$rp" 2>/dev/null || { wait "$rp"; return 0; }
		sleep 0.1
	done
	kill -9 "$rp" 2>/dev/null; wait "$rp" 2>/dev/null
	return 1
}
fifo=$ROOT.fifo
mkfifo "$fifo"
sleep 1000 >"$fifo" 2>/dev/null & holder=$!
returns_within 20 sh -c '"$0" --root "$1" exec w -- true <"$2"' "$BIN" "$ROOT" "$fifo" && ok || fail "exec with a stdin pipe never closed hung"
if command -v script >/dev/null 2>&1; then
	# script gives the exec a terminal; its input is the held fifo: nobody types
	returns_within 20 sh -c 'script -qec "\"$0\" --root \"$1\" exec w -- true" /dev/null <"$2" >/dev/null' "$BIN" "$ROOT" "$fifo" && ok || fail "exec from a terminal nobody types into hung"
else
	echo "acceptance: the terminal check is skipped, script (util-linux) is not installed"
fi
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
rm -f "$fifo"

# CLI contract: bad input exits 2 with one line, everywhere
expect_usage() {
	what=$1; shift
	err=$("$@" 2>&1 >/dev/null); code=$?
	check "$what: status" "$code" "2"
	check "$what: lines" "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" "1"
}
expect_usage "--root \"\"" "$BIN" --root "" list
expect_usage "exec on a bad name" sd exec "Bad Name" -- true
expect_usage "--env without =" sd exec w --env FOO -- true
expect_usage "--dir that is not there" sd exec w --dir /no/such/folder -- true
expect_usage "help UNKNOWN" "$BIN" help bogus
case $(sd exec w --dir /no/such/folder -- true 2>&1) in *"no folder /no/such/folder"*) ok ;; *) fail "--dir that is not there did not say so" ;; esac
sd exec nosuch -- true 2>/dev/null
check "exec on a missing sandbox" "$?" "1"

# limits: --pids is enforced (as root; v1 pids cgroups are root's only),
# --disk is said not to be
sd create lim --pids 256 --disk 1GiB >/dev/null
js=$(sd inspect lim --json)
[ "$(id -u)" != 0 ] || check "pidsLimit" "$(printf '%s\n' "$js" | field pidsLimit)" "256"
if printf '%s\n' "$js" | grep -q '"diskLimitMiB"'; then fail "diskLimitMiB shown, yet bubblewrap does not enforce it"; else ok; fi
case $(sd inspect lim) in *"1 GiB, not enforced"*) ok ;; *) fail "inspect lim does not say the disk is not enforced" ;; esac
sd rm lim >/dev/null

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

# the command line alone, without the controller program beside it: serve,
# and a command that would start a controller, say what is missing
LONE=$(mktemp -d)
cp "$BIN" "$LONE/sandboxdesk"
err=$("$LONE/sandboxdesk" --root "$LONE/root" serve 2>&1); code=$?
check "serve without sandboxdesk-serve: status" "$code" "1"
case $err in *"sandboxdesk-serve is not beside this command in $LONE"*) ok ;; *) fail "serve without sandboxdesk-serve said '$err'" ;; esac
err=$("$LONE/sandboxdesk" --root "$LONE/root" list 2>&1); code=$?
check "list without sandboxdesk-serve: status" "$code" "1"
case $err in *"did not start: sandboxdesk serve: the controller program sandboxdesk-serve is not beside"*) ok ;; *) fail "list without sandboxdesk-serve said '$err'" ;; esac
rm -rf "$LONE"

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

# a queued create says so, with its place, and says why when called off
ROOT4=$(mktemp -d)
"$BIN" --root "$ROOT4" limits --at-once 1 >/dev/null 2>&1
"$BIN" --root "$ROOT4" create first >/dev/null 2>&1
: >"$ROOT4.err" # before the job opens it, for the wait below to read
"$BIN" --root "$ROOT4" create second >/dev/null 2>"$ROOT4.err" & cpid=$!
for _ in $(seq 200); do grep -q queued "$ROOT4.err" && break; sleep 0.1; done
grep -q "second is queued, #1 in line" "$ROOT4.err" && ok || fail "a queued create said '$(cat "$ROOT4.err")'"
kill -INT "$cpid"; wait "$cpid"
grep -q "called off while queued (#1 in line): interrupt" "$ROOT4.err" && ok || fail "a called-off create said '$(cat "$ROOT4.err")'"
# quit finds a controller by its lock when its socket is gone
rm -f "$ROOT4/control.sock"
out=$("$BIN" --root "$ROOT4" quit 2>&1); code=$?
check "quit by the lock: status" "$code" "0"
case $out in *"does not answer on its socket"*"stopped the controller"*) ok ;; *) fail "quit by the lock said '$out'" ;; esac
check "bwrap processes left after quit by the lock" "$(bwraps_of "$ROOT4")" "0"
rm -rf "$ROOT4" "$ROOT4.err"

# quit stops the sandboxes: no bwrap of this root is left, and it returns
# only once the controller is gone (a command right after starts a new one
# at once instead of waiting for the old one)
sd exec twin -- sh -c 'trap "" TERM; sleep 300 &'
out=$(sd quit 2>&1)
check "quit status" "$?" "0"
case $out in *"stopping the controller"*"stopped the controller"*) ok ;; *) fail "quit said '$out'" ;; esac
check "bwrap processes left after quit" "$(bwraps_of "$ROOT")" "0"
case $("$BIN" quit --root "$ROOT" 2>&1) in *"no controller is running"*) ok ;; *) fail "a controller still ran after quit" ;; esac
# the next controller finds the database consistent, and starts again what
# quit stopped: twin is restored
state=$(sd inspect twin --json 2>/dev/null | field state)
for _ in $(seq 100); do [ "$state" = running ] && break; sleep 0.1; state=$(sd inspect twin --json 2>/dev/null | field state); done
check "state after quit and a new controller" "$state" "running"

echo "acceptance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
