// Package rootlock is the lock that makes one controller the owner of a
// root folder: a file in the root, locked by the controller for as long as
// it runs, naming its pid. The operating system releases the lock when the
// process dies, however it dies, so a crash never leaves a root locked.
//
// The controller takes it; clients read it (Holder) to find a controller
// that no longer answers on its socket, one stopping its sandboxes or one
// whose socket was removed.
package rootlock
