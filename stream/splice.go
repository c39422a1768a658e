package stream

import (
	"encoding/binary"
	"io"
)

// writeHeader sends a frame's header alone, its payload to follow.
func writeHeader(w io.Writer, typ byte, n int) error {
	var hdr [5]byte
	hdr[0] = typ
	binary.BigEndian.PutUint32(hdr[1:], uint32(n))
	_, err := w.Write(hdr[:])
	return err
}

// spliceFrom sends what the pipe r holds to the connection under f as
// frames of what the pipe holds at each read, up to ChunkSize, their
// payloads spliced. handled is false, with nothing sent, when r is not a
// pipe or the connection not a socket.
func (f *Writer) spliceFrom(r io.Reader) (total int64, handled bool, err error) {
	conn := f.W
	if d, ok := conn.(deciding); ok {
		conn = d.s.w
	}
	sp, ok := openSplice(r, conn)
	if !ok {
		return 0, false, nil
	}
	for {
		n, err := sp.pending()
		if err != nil || n == 0 {
			return total, true, err
		}
		f.Mu.Lock()
		err = writeHeader(f.W, f.Typ, n) // through f.W: an offered client hears first that it streams here
		if err == nil {
			err = sp.move(f.W, n)
		}
		f.Mu.Unlock()
		if err != nil {
			return total, true, err
		}
		total += int64(n)
	}
}
