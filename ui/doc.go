// Package ui is sandboxdesk's desktop front end, built with Fyne: the main
// window, and later the Add Sandbox dialog, Settings and the tray. It shows
// what the controller computes and asks the controller to act; it never
// computes a default, a range or a capacity itself, and never imports a
// backend. Nothing here imports fyne.io/fyne/v2/app, so every screen is
// tested with fyne.io/fyne/v2/test and needs no display.
package ui
