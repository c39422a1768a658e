// Command wsl is the fake wsl.exe: `go build -o wsl.exe` and point the
// wsl backend at it.
package main

import (
	"os"

	"sandboxdesk/backends/wsl/fakewsl"
)

func main() { os.Exit(fakewsl.Main(os.Args[1:])) }
