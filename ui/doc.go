// Package ui is sandboxdesk's desktop front end, built with Fyne: the main
// window with its list of sandboxes, the Add Sandbox dialog, Settings, the
// exec and shell windows, and the tray. It talks to a controller only
// through an ipc.Client (in the app, the in-process one the daemon hands
// back; or the socket of a `sandboxdesk serve` that owns the root), shows
// what the controller computes and asks it to act. It never computes a
// default, a range or a capacity itself, and links no controller and no
// backend.
//
// Nothing here imports fyne.io/fyne/v2/app, so every screen is tested
// with fyne.io/fyne/v2/test and needs no display.
package ui
