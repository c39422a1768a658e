// Package version holds sandboxdesk's one version, which the command line,
// the app's About and the packages all show. It is the release's git tag,
// stamped at build time; it is not a compatibility promise between the
// CLI and a controller (the protocol says that).
package version

// Version is stamped by the build: make passes
// -ldflags "-X sandboxdesk/version.Version=$(git describe --tags --always --dirty)".
// A plain go build, with no tag to read, is "dev".
var Version = "dev"
