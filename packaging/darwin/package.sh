#!/bin/sh
# Builds sandboxdesk.app on a Mac: the app, the command line and the
# controller without a window for this Mac's architecture, laid out by packaging/bundle (Info.plist, icon),
# signed with the entitlements vz needs (ad hoc, or as SIGN_IDENTITY with
# the hardened runtime a Developer ID needs), then a zip and, where
# hdiutil is, a .dmg with a link to /Applications to drag it onto.
#   sh packaging/darwin/package.sh VERSION OUTDIR
# GO, TAGS, LDFLAGS and SIGN_IDENTITY come from the Makefile
# (make package-darwin). Writes OUTDIR/sandboxdesk.app and
# OUTDIR/sandboxdesk-VERSION-macos-ARCH.zip (and .dmg).
set -eu
VERSION=$1
OUT=$2
GO=${GO:-go}
TAGS=${TAGS:-migrated_fynedo,no_emoji}
LDFLAGS=${LDFLAGS:-}
IDENTITY=${SIGN_IDENTITY:--}
[ "$(uname)" = Darwin ] || { echo "package-darwin: builds on a Mac (cgo for the Cocoa window and vz, codesign); here, go test ./packaging/bundle checks the bundle's layout and plists" >&2; exit 1; }
command -v codesign >/dev/null 2>&1 || { echo "package-darwin: codesign is missing: install Xcode's command line tools (xcode-select --install)" >&2; exit 1; }
ARCH=$("$GO" env GOARCH)
BUILD=$OUT/darwin
APP=$OUT/sandboxdesk.app
mkdir -p "$BUILD"
"$GO" build -tags "$TAGS" -trimpath -ldflags "$LDFLAGS" -o "$BUILD/sandboxdesk-app" .
"$GO" build -tags "$TAGS" -trimpath -ldflags "$LDFLAGS" -o "$BUILD/sandboxdesk-serve" ./cmd/sandboxdesk-serve
CGO_ENABLED=0 "$GO" build -tags "$TAGS" -trimpath -ldflags "$LDFLAGS" -o "$BUILD/sandboxdesk" ./cmd/sandboxdesk
"$GO" run ./packaging/bundle macos -version "$VERSION" -app "$BUILD/sandboxdesk-app" -cli "$BUILD/sandboxdesk" \
	-serve "$BUILD/sandboxdesk-serve" -icon assets/icons/sandboxdesk.icns -out "$APP"

# The programs beside the app are signed on their own first: the
# controller without a window with the app's entitlements (it starts VMs
# too), the command line with none (it runs no VM); then the bundle,
# which seals the app, Info.plist and resources. A Developer ID needs the
# hardened runtime and a timestamp; an ad-hoc signature takes neither.
sign() { # FILE [ENTITLEMENTS]
	ent=""
	[ $# -lt 2 ] || ent="--entitlements $2"
	if [ "$IDENTITY" = - ]; then
		codesign --force --sign - $ent "$1"
	else
		codesign --force --sign "$IDENTITY" --options runtime --timestamp $ent "$1"
	fi
}
sign "$APP/Contents/MacOS/sandboxdesk-serve" packaging/darwin/entitlements.plist
sign "$APP/Contents/MacOS/sandboxdesk"
sign "$APP" packaging/darwin/entitlements.plist
codesign --verify --strict --verbose=2 "$APP"
codesign --display --entitlements - "$APP" 2>/dev/null | grep -q com.apple.security.virtualization ||
	{ echo "package-darwin: the signed app lacks the virtualization entitlement" >&2; exit 1; }

NAME=sandboxdesk-$VERSION-macos-$ARCH
rm -f "$OUT/$NAME.zip" "$OUT/$NAME.dmg"
# ditto keeps the signature's extended attributes, which zip would drop
ditto -c -k --keepParent "$APP" "$OUT/$NAME.zip"
echo "wrote $OUT/$NAME.zip"
if command -v hdiutil >/dev/null 2>&1; then
	STAGE=$(mktemp -d)
	trap 'rm -rf "$STAGE"' EXIT
	ditto "$APP" "$STAGE/sandboxdesk.app"
	ln -s /Applications "$STAGE/Applications"
	hdiutil create -quiet -volname sandboxdesk -srcfolder "$STAGE" -fs HFS+ -format UDZO -ov "$OUT/$NAME.dmg"
	[ "$IDENTITY" = - ] || codesign --force --sign "$IDENTITY" --timestamp "$OUT/$NAME.dmg"
	echo "wrote $OUT/$NAME.dmg"
fi
