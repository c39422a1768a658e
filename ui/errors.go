package ui

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/ipc"
)

// problem is an error as a person reads it: what failed and what to do in
// one line, and what the line leaves out (the request sent, the tool's
// own words) for the Details fold.
type problem struct {
	line   string
	detail string
	// copyText is something to do by hand (a folder, a command), shown
	// with a Copy button.
	copyText string
}

// failure words err for a person; nothing of Go's own phrasing ("context
// deadline exceeded", "exec: ...") reaches the line.
func failure(what string, err error) problem {
	var ee *exec.Error
	var ie *ipc.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return problem{line: what + fmt.Sprintf(": the controller did not answer within %d seconds", int(timeout.Seconds())) +
			". It may be busy stopping or building sandboxes; try again in a moment.", detail: err.Error()}
	case errors.Is(err, context.Canceled):
		return problem{line: what + ": called off because sandboxdesk is quitting.", detail: err.Error()}
	case errors.As(err, &ee):
		return problem{line: fmt.Sprintf("%s: this system has no %s to do it. Install one, or do it by hand.", what, ee.Name), detail: err.Error()}
	case errors.As(err, &ie) && errors.Is(err, ipc.ErrUnavailable) && strings.Contains(ie.Message, "connection"):
		return problem{line: what + ": lost the controller. Wait a moment and try again; if it stays, quit sandboxdesk and open it again.", detail: err.Error()}
	case errors.As(err, &ie):
		return problem{line: sentence(ie.Message)}
	}
	return problem{line: what + " failed: " + sentence(err.Error())}
}

// sentence starts msg with a capital and ends it with a full stop.
func sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return msg
	}
	r, n := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(r)) + msg[n:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// showError shows err's line first, details folded below. Safe from any
// goroutine.
func (u *App) showError(title string, err error) { u.showProblem(title, failure(title, err)) }

// showRequestError is showError with the request that failed in Details.
func (u *App) showRequestError(title string, req ipc.Request, err error) {
	p := failure(title, err)
	if line, eerr := ipc.EncodeRequest(req); eerr == nil {
		p.detail = strings.TrimSpace("Sent to the controller: " + strings.TrimSpace(string(line)) + "\n" + p.detail)
	}
	u.showProblem(title, p)
}

func (u *App) showProblem(title string, p problem) {
	u.do(func() { u.errorDialog(title, p).Show() })
}

// errorDialog is the one-line message, something to copy when there is
// one, and the details behind a "Details" fold. Return and Escape close it.
func (u *App) errorDialog(title string, p problem) *keyedDialog {
	head := widget.NewLabel(p.line)
	head.Wrapping = fyne.TextWrapWord
	body := container.NewVBox(head)
	if p.copyText != "" {
		shown := widget.NewEntry()
		shown.SetText(p.copyText)
		copyButton := widget.NewButton("Copy", func() { u.fyne.Clipboard().SetContent(p.copyText) })
		body.Add(container.NewBorder(nil, nil, nil, copyButton, shown))
	}
	detail := strings.TrimSpace(p.detail + "\nat " + time.Now().Format(time.DateTime))
	details := widget.NewLabel(detail)
	details.Wrapping = fyne.TextWrapWord
	body.Add(widget.NewAccordion(widget.NewAccordionItem("Details", details)))
	d := dialog.NewCustomWithoutButtons(title, body, u.win)
	k := u.keyed(d, nil)
	k.onReturn, k.onEscape = d.Hide, d.Hide
	d.SetButtons([]fyne.CanvasObject{widget.NewButton("Close", d.Hide)})
	d.Resize(fyne.NewSize(min(480, u.win.Canvas().Size().Width-20), 0))
	return k
}
