#!/bin/sh
# Builds the Windows installer on Linux: the app (a GUI program, no
# console), the command line (a console program, for a terminal and
# scripts; no cgo) and the controller without a window that its serve
# runs (a console program) cross-built, with MinGW where cgo is, each
# with its icon, manifest and version information as resources, then the
# NSIS installer around them.
#   sh packaging/windows/package.sh VERSION OUTDIR
# GO, TAGS and LDFLAGS come from the Makefile (make package-windows).
# Writes OUTDIR/sandboxdesk-VERSION-windows-amd64-setup.exe.
set -eu
VERSION=$1
OUT=$2
GO=${GO:-go}
TAGS=${TAGS:-migrated_fynedo,no_emoji}
LDFLAGS=${LDFLAGS:-}
for tool in x86_64-w64-mingw32-gcc x86_64-w64-mingw32-windres makensis; do
	command -v "$tool" >/dev/null 2>&1 || { echo "package-windows: $tool is missing (make deps installs it)" >&2; exit 1; }
done
BUILD=$OUT/windows
mkdir -p "$BUILD"
# Go links a package's *.syso into its Windows build: each program's
# resources go beside its main package for the build, and no further.
APP_SYSO=rsrc_windows_amd64.syso
CLI_SYSO=cmd/sandboxdesk/rsrc_windows_amd64.syso
SERVE_SYSO=cmd/sandboxdesk-serve/rsrc_windows_amd64.syso
trap 'rm -f "$APP_SYSO" "$CLI_SYSO" "$SERVE_SYSO"' EXIT
resources() { # FILE DESCRIPTION SYSO
	"$GO" run ./packaging/bundle winres -version "$VERSION" -file "$1" -description "$2" \
		-icon assets/icons/sandboxdesk.ico -out "$BUILD/${1%.exe}.rc"
	x86_64-w64-mingw32-windres -O coff -i "$BUILD/${1%.exe}.rc" -o "$3"
}
resources sandboxdesk-app.exe "sandboxdesk" "$APP_SYSO"
resources sandboxdesk.exe "sandboxdesk command line" "$CLI_SYSO"
resources sandboxdesk-serve.exe "sandboxdesk controller" "$SERVE_SYSO"
export CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc CXX=x86_64-w64-mingw32-g++
"$GO" build -tags "$TAGS" -trimpath -ldflags "-H windowsgui $LDFLAGS" -o "$BUILD/sandboxdesk-app.exe" .
"$GO" build -tags "$TAGS" -trimpath -ldflags "$LDFLAGS" -o "$BUILD/sandboxdesk-serve.exe" ./cmd/sandboxdesk-serve
CGO_ENABLED=0 "$GO" build -tags "$TAGS" -trimpath -ldflags "$LDFLAGS" -o "$BUILD/sandboxdesk.exe" ./cmd/sandboxdesk
unset CGO_ENABLED GOOS GOARCH CC CXX
SETUP=$(cd "$OUT" && pwd)/sandboxdesk-$VERSION-windows-amd64-setup.exe
makensis -V2 -DVERSION="$VERSION" \
	-DVERSION_WIN="$("$GO" run ./packaging/bundle winversion -version "$VERSION")" \
	-DSRC="$(cd "$BUILD" && pwd)" -DICON="$(pwd)/assets/icons/sandboxdesk.ico" \
	-DOUTFILE="$SETUP" packaging/windows/sandboxdesk.nsi
echo "wrote $SETUP"
