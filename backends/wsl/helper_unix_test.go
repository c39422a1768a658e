//go:build !windows

package wsl

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func waitInterrupt() int {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT)
	fmt.Println("ready")
	<-ch
	return 130
}
