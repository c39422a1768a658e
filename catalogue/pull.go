package catalogue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrChecksum is a downloaded file whose sha256 is not the catalogue's.
var ErrChecksum = errors.New("does not match the catalogue's sha256")

// ErrSilent is a server that sent nothing for the idle timeout.
var ErrSilent = errors.New("the server sent nothing")

// Progress is how far a pull is: bytes of the image's total, and the
// rate of this pull (bytes a second, over what it downloaded itself).
type Progress struct {
	Image       string
	File        string
	Bytes       int64
	Total       int64
	BytesPerSec int64
}

// Client downloads catalogues and images.
type Client struct {
	// HTTP is the client used (http.DefaultClient when nil).
	HTTP *http.Client
	// Idle is how long a server may send nothing before it is given up on
	// (30s when zero).
	Idle time.Duration
	// Retries is how many times a cut download is resumed (5 when zero).
	Retries int
	// Every is the least time between two progress reports (100ms when
	// zero); the first and the last always come.
	Every time.Duration

	mu   sync.Mutex
	busy map[string]bool // folders being pulled into
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) idle() time.Duration {
	if c.Idle > 0 {
		return c.Idle
	}
	return 30 * time.Second
}

// Load fetches and checks the catalogue at rawURL.
func (c *Client) Load(ctx context.Context, rawURL string) (Catalogue, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Catalogue{}, fmt.Errorf("catalogue %q: not an http or https URL", rawURL)
	}
	var data []byte
	err = c.get(ctx, u.String(), 0, func(r io.Reader, offset int64) error {
		var rerr error
		data, rerr = io.ReadAll(io.LimitReader(r, MaxCatalogueBytes+1))
		return rerr
	})
	if err != nil {
		return Catalogue{}, fmt.Errorf("catalogue %s: %w", u.Redacted(), err)
	}
	cat, err := Parse(data, u)
	if err != nil {
		return Catalogue{}, fmt.Errorf("catalogue %s: %w", u.Redacted(), err)
	}
	return cat, nil
}

// Pull downloads img into dest, a folder that appears, whole, only once
// every file is there and checked. The files are gathered beside it in a
// hidden folder (".pull-" and dest's name) that a pull cut short leaves,
// so the next one resumes; a dest already there is replaced. An image is
// no secret: its files are readable by all, as a built one's are.
func (c *Client) Pull(ctx context.Context, img Image, dest string, progress func(Progress)) error {
	// two pulls into one folder would write the same parts
	c.mu.Lock()
	if c.busy[dest] {
		c.mu.Unlock()
		return fmt.Errorf("pull %s: a pull of it is already under way", img.Name)
	}
	if c.busy == nil {
		c.busy = map[string]bool{}
	}
	c.busy[dest] = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.busy, dest)
		c.mu.Unlock()
	}()
	stage := filepath.Join(filepath.Dir(dest), ".pull-"+filepath.Base(dest))
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return fmt.Errorf("pull %s: %w", img.Name, err)
	}
	r := &reporter{img: img.Name, total: img.Size(), every: c.Every, report: progress, start: time.Now()}
	if r.every == 0 {
		r.every = 100 * time.Millisecond
	}
	for _, f := range img.Files {
		if err := c.file(ctx, f, stage, r); err != nil {
			if errors.Is(err, ErrChecksum) {
				// the server sends a wrong file: nothing of it is kept
				os.RemoveAll(stage)
				return fmt.Errorf("pull %s: %s: %w", img.Name, f.Name, err)
			}
			return fmt.Errorf("pull %s: %s: %w; what arrived is kept, and pulling again goes on from there", img.Name, f.Name, err)
		}
	}
	r.flush()
	if err := replace(stage, dest); err != nil {
		return fmt.Errorf("pull %s: %w", img.Name, err)
	}
	return nil
}

// file brings one file into stage: kept when already there and checked,
// else downloaded into NAME.part, resumed after cuts, checked, renamed.
func (c *Client) file(ctx context.Context, f File, stage string, r *reporter) error {
	final := filepath.Join(stage, f.Name)
	if sum, err := FileSHA256(final); err == nil && sum == f.SHA256 {
		r.resumed(f.Name, f.Size) // complete in an earlier pull
		return nil
	}
	part := final + ".part"
	out, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	have, err := out.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if have > f.Size {
		// longer than the file can be: not a part of it
		if err := out.Truncate(0); err != nil {
			return err
		}
		have = 0
	}
	r.resumed(f.Name, have)
	retries := c.Retries
	if retries == 0 {
		retries = 5
	}
	for attempt := 0; have < f.Size; attempt++ {
		err := c.get(ctx, f.URL, have, func(body io.Reader, offset int64) error {
			// a server that ignores Range sends it all again: skip what is
			// here, so the progress never goes back
			if _, err := io.CopyN(io.Discard, body, have-offset); err != nil {
				return cut(err)
			}
			// never more than the catalogue's size: a longer file is a wrong
			// one, which its sha256 tells
			if _, err := io.Copy(out, &counting{r: io.LimitReader(body, f.Size-have), add: func(n int64) { have += n; r.add(f.Name, n) }}); err != nil {
				return cut(err)
			}
			if have < f.Size {
				return cut(io.ErrUnexpectedEOF)
			}
			return nil
		})
		if err == nil {
			break
		}
		var ce *cutError
		if !errors.As(err, &ce) || attempt >= retries || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 200 * time.Millisecond):
		}
	}
	if err := out.Close(); err != nil {
		return err
	}
	sum, err := FileSHA256(part)
	if err != nil {
		return err
	}
	if sum != f.SHA256 {
		os.Remove(part)
		return fmt.Errorf("%w (got %s, want %s); the download was deleted", ErrChecksum, sum, f.SHA256)
	}
	return os.Rename(part, final)
}

// cutError is a download cut short, which a Range request resumes.
type cutError struct{ err error }

func (e *cutError) Error() string { return "the download was cut: " + e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }

// cut marks err as a cut connection, unless it is the caller giving up.
func cut(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &cutError{err}
}

// get requests rawURL from offset (a Range request when not 0) and hands
// the body to read with the offset it starts at: offset, or 0 from a
// server that ignores Range. A server that sends nothing for the idle
// time ends the request with ErrSilent.
func (c *Client) get(ctx context.Context, rawURL string, offset int64, read func(io.Reader, int64) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := c.idle()
	timer := time.AfterFunc(idle, func() { cancel(fmt.Errorf("%w for %s", ErrSilent, idle)) })
	defer timer.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return err
	}
	if offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
	}
	resp, err := c.http().Do(req)
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrSilent) {
			return cause
		}
		return cut(err)
	}
	defer resp.Body.Close()
	start := int64(0)
	switch {
	case resp.StatusCode == http.StatusPartialContent && offset > 0:
		if start, err = rangeStart(resp.Header.Get("Content-Range")); err != nil || start > offset {
			return fmt.Errorf("the server answered a resume with %q", resp.Header.Get("Content-Range"))
		}
	case resp.StatusCode == http.StatusOK:
	default:
		return fmt.Errorf("the server answered %s", resp.Status)
	}
	body := &counting{r: resp.Body, add: func(int64) { timer.Reset(idle) }}
	err = read(body, start)
	if cause := context.Cause(ctx); errors.Is(cause, ErrSilent) {
		return cause
	}
	return err
}

// rangeStart reads the first byte of "bytes START-END/SIZE".
func rangeStart(h string) (int64, error) {
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, errors.New("no byte range")
	}
	first, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, errors.New("no byte range")
	}
	return strconv.ParseInt(first, 10, 64)
}

// counting tells add how many bytes each read brought.
type counting struct {
	r   io.Reader
	add func(int64)
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.add(int64(n))
	}
	return n, err
}

// replace puts the staged folder in dest's place, moving an older dest
// aside first (a folder cannot be renamed over a full one).
func replace(stage, dest string) error {
	old := filepath.Join(filepath.Dir(dest), ".old-"+filepath.Base(dest))
	os.RemoveAll(old)
	if err := os.Rename(dest, old); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(stage, dest); err != nil {
		os.Rename(old, dest)
		return err
	}
	return os.RemoveAll(old)
}

// FileSHA256 is the hex sha256 of a file's content, as manifests and
// catalogues name it.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// reporter adds up an image's bytes and reports them, at most every so
// often.
type reporter struct {
	img    string
	total  int64
	every  time.Duration
	report func(Progress)
	start  time.Time

	mu      sync.Mutex
	bytes   int64 // of the image, resumed ones included
	fetched int64 // by this pull
	file    string
	last    time.Time
}

func (r *reporter) resumed(file string, n int64) {
	r.mu.Lock()
	r.bytes += n
	r.file = file
	r.mu.Unlock()
	r.tick(false)
}

func (r *reporter) add(file string, n int64) {
	r.mu.Lock()
	r.bytes += n
	r.fetched += n
	r.file = file
	r.mu.Unlock()
	r.tick(false)
}

func (r *reporter) flush() { r.tick(true) }

func (r *reporter) tick(force bool) {
	if r.report == nil {
		return
	}
	r.mu.Lock()
	now := time.Now()
	if !force && !r.last.IsZero() && now.Sub(r.last) < r.every {
		r.mu.Unlock()
		return
	}
	r.last = now
	p := Progress{Image: r.img, File: r.file, Bytes: r.bytes, Total: r.total}
	if secs := now.Sub(r.start).Seconds(); secs > 0 {
		p.BytesPerSec = int64(float64(r.fetched) / secs)
	}
	r.mu.Unlock()
	r.report(p)
}
