# sandboxdesk: `make run` builds and opens the app, `make test` runs every test.

GO      ?= go
TAGS    := migrated_fynedo
BIN     := bin/sandboxdesk
SHARED_TOOLS := ../shared/tools
export LANG := en_US.UTF-8
export CGO_ENABLED := 1

.PHONY: run build deps go-check test fmt-check vet unit crosscheck acceptance clients-test tray screenshots bench clean guest-image

run: deps build
	@if [ "$$(uname)" = Linux ] && [ -z "$$DISPLAY" ] && [ -z "$$WAYLAND_DISPLAY" ]; then \
		echo "sandboxdesk: no display (DISPLAY and WAYLAND_DISPLAY are unset); start a desktop session or Xvfb first" >&2; exit 1; fi
	./$(BIN)

build: go-check
	$(GO) build -tags $(TAGS) -o $(BIN) .

# deps installs the system packages when run as root and names the missing
# ones otherwise (Linux); elsewhere it only checks the Go toolchain.
deps: go-check
	@if [ "$$(uname)" = Linux ]; then sh packaging/linux/deps.sh; fi

go-check:
	@command -v $(GO) >/dev/null 2>&1 || { echo "sandboxdesk: Go 1.26 or newer is needed (https://go.dev/dl)" >&2; exit 1; }
	@$(GO) version | awk '{ split(substr($$3, 3), v, "."); if (v[1] < 1 || (v[1] == 1 && v[2] < 26)) { print "sandboxdesk: Go 1.26 or newer is needed, found " $$3 > "/dev/stderr"; exit 1 } }'

test: deps fmt-check vet unit crosscheck acceptance clients-test tray

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

bench:
	@# bubblewrap exec and cold create beside raw bwrap
	sh bench/run.sh
	@# VM cold start, start from a checkpoint and exec of true (qemu)
	sh bench/vm.sh

# guest-image builds a VM sandbox's kernel, initrd and manifest from
# Debian packages and our agent, into GUEST_DIR (outside the tree: images
# are never committed), where the app's VM backend finds them.
ARCH      ?= amd64
FLAVOR    ?= tiny
GUEST_DIR ?= $(if $(XDG_CACHE_HOME),$(XDG_CACHE_HOME),$(HOME)/.cache)/sandboxdesk/guest
guest-image: go-check
	sh packaging/guest/build.sh $(ARCH) $(FLAVOR) $(GUEST_DIR)/$(ARCH)-$(FLAVOR)

clean:
	rm -rf bin
