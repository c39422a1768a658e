#!/bin/sh
# VM benchmarks: cold start (boot to a working agent), start from a
# checkpoint and exec of true, under whatever the qemu driver found (KVM,
# or software emulation where KVM does not work). Needs qemu-system-x86.
#   sh bench/vm.sh [go test -bench flags...]
set -eu
cd "$(dirname "$0")/.."
export LANG=en_US.UTF-8
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	echo "VM benchmarks: not measured (qemu-system-x86_64 is not installed)"
	exit 0
fi
go test -run '^$' -bench 'VMColdStart|VMCheckpointStart' -benchtime "${VM_BENCHTIME:-3x}" "$@" ./backends/vm/qemu
go test -run '^$' -bench 'VMExecTrue' -benchtime "${VM_EXEC_BENCHTIME:-100x}" "$@" ./backends/vm/qemu
