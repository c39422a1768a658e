# sandboxdesk: `make run` builds and opens the app, `make test` runs every test.

GO      ?= go
# no_emoji leaves out Fyne's colour emoji font: the app shows no emoji
# (a system font draws the one symbol it has, the host network's ⚠), and
# Fyne parses that 4 MiB font again for every text style it measures,
# some 5 MiB of memory each, before the first window shows.
TAGS    := migrated_fynedo,no_emoji
# bin/sandboxdesk is the command line (static, no cgo: no controller,
# SQLite, Fyne or GL; with no arguments it opens the app, and `serve`
# becomes bin/sandboxdesk-serve, the controller without a window),
# bin/sandboxdesk-app the desktop app, bin/sandboxdesk-agent the static
# agent every sandbox runs. They ship together, side by side.
BIN     := bin/sandboxdesk
SERVE   := bin/sandboxdesk-serve
APP     := bin/sandboxdesk-app
AGENT   := bin/sandboxdesk-agent
SHARED_TOOLS := ../shared/tools
# VERSION is the one version of every binary and package: the git tag
# (v1.2.0, or v1.2.0-3-gabc1234-dirty between tags), "dev" outside git.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
VERSION := $(VERSION)
LDFLAGS := -X sandboxdesk/version.Version=$(VERSION)
export LANG := en_US.UTF-8
export CGO_ENABLED := 1

.PHONY: run build sign deps go-check test fmt-check vet unit crosscheck wine-test wine-test-all wine-run acceptance clients-test tray screenshots windows-app screenshots-windows bench guest-image vm-test icons package-linux package-linux-check package-windows package-windows-check package-darwin release clean

run: deps build
	@if [ "$$(uname)" = Linux ] && [ -z "$$DISPLAY" ] && [ -z "$$WAYLAND_DISPLAY" ]; then \
		echo "sandboxdesk: no display (DISPLAY and WAYLAND_DISPLAY are unset); start a desktop session or Xvfb first" >&2; exit 1; fi
	./$(BIN)

build: go-check
	$(GO) build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $(APP) .
	$(GO) build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $(SERVE) ./cmd/sandboxdesk-serve
	CGO_ENABLED=0 $(GO) build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/sandboxdesk
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s $(LDFLAGS)" -o $(AGENT) ./cmd/sandboxdesk-agent
	@if [ "$$(uname)" = Darwin ]; then $(MAKE) --no-print-directory sign; fi

# sign (macOS): Virtualization.framework starts no VM for a binary without
# the com.apple.security.virtualization entitlement. Both the app and the
# controller without a window (which runs the VMs when the app does not)
# are signed ad hoc with it: no developer account is needed to run them
# here. The command line runs none and is signed as it is built.
ENTITLEMENTS := packaging/darwin/entitlements.plist
sign:
	@command -v codesign >/dev/null 2>&1 || { echo "sandboxdesk: codesign not found: install the Xcode command line tools (xcode-select --install)" >&2; exit 1; }
	codesign --force --sign - --entitlements $(ENTITLEMENTS) $(APP)
	codesign --force --sign - --entitlements $(ENTITLEMENTS) $(SERVE)

# deps installs the system packages when run as root and names the missing
# ones otherwise (Linux); elsewhere it only checks the Go toolchain.
deps: go-check
	@if [ "$$(uname)" = Linux ]; then sh packaging/linux/deps.sh; fi

go-check:
	@command -v $(GO) >/dev/null 2>&1 || { echo "sandboxdesk: Go 1.26 or newer is needed (https://go.dev/dl)" >&2; exit 1; }
	@$(GO) version | awk '{ split(substr($$3, 3), v, "."); if (v[1] < 1 || (v[1] == 1 && v[2] < 26)) { print "sandboxdesk: Go 1.26 or newer is needed, found " $$3 > "/dev/stderr"; exit 1 } }'

test: deps fmt-check vet unit crosscheck wine-test acceptance clients-test tray

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:" $$out >&2; exit 1; fi

vet:
	$(GO) vet -tags $(TAGS) ./...

unit:
	$(GO) test -race -tags $(TAGS) ./...

# crosscheck type-checks the darwin (vz) and windows (WSL) builds, cgo
# included, where the project's shared tools are checked out beside it.
crosscheck:
	@if [ -x $(SHARED_TOOLS)/crosscheck.sh ] || [ -f $(SHARED_TOOLS)/crosscheck.sh ]; then \
		set -e; \
		bash $(SHARED_TOOLS)/crosscheck.sh darwin; \
		bash $(SHARED_TOOLS)/crosscheck.sh darwin amd64; \
		bash $(SHARED_TOOLS)/crosscheck.sh windows; \
	else echo "crosscheck: $(SHARED_TOOLS) not found, skipping the darwin and windows type-checks"; fi

# wine-test runs the Windows build of every package whose tests build
# without cgo under Wine (the WSL backend against the fake wsl.exe, the
# named-pipe transport); wine-test-all also builds the cgo ones (SQLite,
# Fyne) with MinGW, which takes minutes. Packages only Linux has are left
# out. Skipped, with a line, where Wine, MinGW or the shared tools are
# missing. Wine names host files in the locale's encoding: C.UTF-8, which
# every Debian has, keeps non-ASCII file names (a user called Zoë) working
# where en_US.UTF-8 is not generated.
WINE_PACKAGES = $$($(GO) list ./... | grep -v -e /backends/bubblewrap)
wine-test:
	@$(MAKE) --no-print-directory wine-run WINE_FLAGS=

wine-test-all:
	@$(MAKE) --no-print-directory wine-run WINE_FLAGS=-cgo

wine-run:
	@if [ ! -f $(SHARED_TOOLS)/wine-test.sh ]; then echo "wine-test: $(SHARED_TOOLS) not found, skipping the Windows tests under Wine"; \
	elif ! command -v wine64 >/dev/null 2>&1 && [ ! -x /usr/lib/wine/wine64 ]; then echo "wine-test: wine64 is not installed (make deps), skipping the Windows tests under Wine"; \
	elif ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then echo "wine-test: x86_64-w64-mingw32-gcc is not installed (make deps), skipping the Windows tests under Wine"; \
	else echo "?   	sandboxdesk/backends/bubblewrap	[Linux only: not run under Wine]"; \
		LANG=C.UTF-8 bash $(SHARED_TOOLS)/wine-test.sh $(WINE_FLAGS) -tags $(TAGS) $(WINE_PACKAGES); fi

# acceptance runs the CLI end to end as a user would, from a fresh root.
acceptance: build
	sh testdata/cli_acceptance.sh $(BIN)

# clients-test runs the Go, TypeScript and Python clients against one real
# controller (skipping a client whose toolchain is missing).
clients-test: build
	GO=$(GO) sh clients/test.sh $(BIN)

# tray checks under Xvfb, with a session bus and a StatusNotifier host,
# that the app's tray item registers and serves its menu over D-Bus; it
# skips, saying why, where those programs are missing.
tray: build
	sh testdata/tray_check.sh $(BIN)

# screenshots runs the real app under Xvfb and writes PNGs of its screens.
SCREENSHOTS_DIR ?= docs/screenshots
screenshots: build
	sh packaging/screenshots.sh $(BIN) $(SCREENSHOTS_DIR)

# windows-app cross-builds the Windows app with MinGW (minutes on a fresh
# machine); screenshots-windows runs it under Wine with Xvfb against the
# fake wsl.exe and writes a picture of its main window.
windows-app:
	CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc CXX=x86_64-w64-mingw32-g++ \
		$(GO) build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o bin/sandboxdesk.exe .
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -o bin/fakewsl/wsl.exe ./backends/wsl/fakewsl/wsl

screenshots-windows: windows-app
	sh packaging/windows/screenshot.sh bin/sandboxdesk.exe bin/fakewsl/wsl.exe $(SCREENSHOTS_DIR)/windows.png

# bench prints one table of figures beside their anchors; make bench
# BENCH_FLAGS="--json bench.json" writes it as JSON too. The VM rows
# (cold start, start from a checkpoint, exec of true under qemu) follow.
bench: build
	sh bench/run.sh $(BENCH_FLAGS)
	sh bench/vm.sh

# guest-image builds a VM sandbox's kernel, initrd and manifest from
# Debian packages and our agent, into GUEST_DIR (outside the tree: images
# are never committed), where the app's VM backend finds them.
ARCH      ?= amd64
FLAVOR    ?= tiny
# the folder the app reads (Go's user cache folder: ~/Library/Caches on macOS)
GUEST_DIR ?= $(if $(filter Darwin,$(shell uname)),$(HOME)/Library/Caches,$(if $(XDG_CACHE_HOME),$(XDG_CACHE_HOME),$(HOME)/.cache))/sandboxdesk/guest
guest-image: go-check
	sh packaging/guest/build.sh $(ARCH) $(FLAVOR) $(GUEST_DIR)/$(ARCH)-$(FLAVOR)

# vm-test builds the arm64 tiny image and this machine's debian one (root:
# debootstrap) into GUEST_DIR and boots them under QEMU, arm64 emulated
# on another host: minutes, so it is not part of test.
HOST_ARCH = $$($(GO) env GOARCH)
vm-test: go-check
	sh packaging/guest/build.sh arm64 tiny $(GUEST_DIR)/arm64-tiny
	sh packaging/guest/build.sh $(HOST_ARCH) debian $(GUEST_DIR)/$(HOST_ARCH)-debian
	SANDBOXDESK_GUEST_DIR=$(GUEST_DIR) $(GO) test -tags $(TAGS) -count=1 -timeout 40m -v -run 'TestBootArm64Tiny|TestBootDebian' ./backends/vm/qemu

# icons draws assets/icon.svg in every size each platform wants into
# assets/icons (PNGs 16 to 1024, sandboxdesk.ico, sandboxdesk.icns); they
# are committed, and a test checks that they match the source.
icons: go-check
	$(GO) run ./packaging/icons -src assets/icon.svg -out assets/icons

# package-linux builds the .deb and the portable tar.xz (with install.sh
# --prefix) into bin/packages; package-linux-check installs both here, as
# root, starts the installed app under Xvfb from its menu entry and
# removes them, checking that nothing is left.
PACKAGES_DIR := bin/packages
LINUX_ARCH   := $(shell $(GO) env GOARCH)
package-linux: build
	sh packaging/linux/package.sh $(VERSION) $(LINUX_ARCH) bin $(PACKAGES_DIR)

package-linux-check: package-linux
	sh packaging/linux/check.sh $(PACKAGES_DIR)/sandboxdesk_*_$(LINUX_ARCH).deb \
		$(PACKAGES_DIR)/sandboxdesk-$(VERSION)-linux-$(LINUX_ARCH).tar.xz \
		$(SCREENSHOTS_DIR)/installed-linux.png $(VERSION)

# release builds every package this machine can (the Linux ones; the
# Windows installer where package-windows is defined) and the guest
# images RELEASE_IMAGES, and writes them with the image catalogue (URLs
# under RELEASE_URL) and SHA256SUMS into RELEASE_DIR, to publish as they
# lie there (images/ARCH-FLAVOR/ folders included).
RELEASE_DIR    ?= bin/release
RELEASE_URL    ?= https://sandboxdesk.dev/releases/$(VERSION)
RELEASE_IMAGES ?= $(LINUX_ARCH)-tiny
release: package-linux
	@if $(MAKE) -n package-windows >/dev/null 2>&1; then $(MAKE) --no-print-directory package-windows VERSION=$(VERSION); \
	else echo "release: this tree has no package-windows target; the release has no Windows installer"; fi
	sh packaging/release.sh $(VERSION) $(RELEASE_DIR) $(RELEASE_URL) "$(RELEASE_IMAGES)"

# package-windows cross-builds the app (a GUI program) and the command
# line (a console one) with MinGW, with their icon and version as
# resources, and the per-user NSIS installer around them:
# bin/sandboxdesk-VERSION-windows-amd64-setup.exe. Minutes when cold, so
# not part of make test; package-windows-check runs the installer under
# Wine with Xvfb (install, Start menu entry, Open at login, the window,
# uninstall) and writes a picture of the installed app.
SETUP_EXE = bin/sandboxdesk-$(VERSION)-windows-amd64-setup.exe
package-windows: go-check
	GO=$(GO) TAGS=$(TAGS) LDFLAGS="$(LDFLAGS)" sh packaging/windows/package.sh $(VERSION) bin

package-windows-check: package-windows
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -o bin/fakewsl/wsl.exe ./backends/wsl/fakewsl/wsl
	LANG=C.UTF-8 sh packaging/windows/check.sh $(SETUP_EXE) bin/fakewsl/wsl.exe $(VERSION) $(SCREENSHOTS_DIR)/installed-windows.png

# package-darwin builds sandboxdesk.app on a Mac (Xcode's command line
# tools), signs it ad hoc or as SIGN_IDENTITY (a Developer ID), and zips
# it, with a .dmg where hdiutil is; elsewhere its layout and plists are
# checked by packaging/bundle's tests.
SIGN_IDENTITY ?= -
package-darwin: go-check
	GO=$(GO) TAGS=$(TAGS) LDFLAGS="$(LDFLAGS)" SIGN_IDENTITY="$(SIGN_IDENTITY)" sh packaging/darwin/package.sh $(VERSION) bin

clean:
	rm -rf bin
