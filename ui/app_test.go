package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

// The window's content skips only Fyne's first pass at its minimum size;
// every later one lays it out.
func TestSizedFirstSkipsOnlyTheFirstPass(t *testing.T) {
	r := canvas.NewRectangle(nil)
	l := &sizedFirst{}
	for _, c := range []struct {
		size fyne.Size
		want fyne.Size
	}{
		{fyne.NewSize(10, 10), fyne.NewSize(0, 0)},
		{fyne.NewSize(900, 520), fyne.NewSize(900, 520)},
		{fyne.NewSize(300, 200), fyne.NewSize(300, 200)},
	} {
		l.Layout([]fyne.CanvasObject{r}, c.size)
		if r.Size() != c.want {
			t.Errorf("laid out at %v: content is %v, want %v", c.size, r.Size(), c.want)
		}
	}
}

// The main view fills the window from the start, whatever its size.
func TestNewLaysOutTheMainViewAtTheWindowsSize(t *testing.T) {
	u := New(test.NewTempApp(t), nil, t.TempDir(), false)
	want := u.win.Canvas().Size()
	if got := u.main.content.Size(); got.Width < want.Width-2*4 || got.Height < want.Height-2*4 || got.Width == 0 {
		t.Errorf("the main view is %v in a %v window", got, want)
	}
}
