package wsl

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// State is a distro's state as wsl.exe --list --verbose tells it, in
// words that do not depend on the language Windows speaks.
type State string

const (
	StateRunning    State = "running"
	StateStopped    State = "stopped"
	StateInstalling State = "installing"
	StateConverting State = "converting"
	StateUnknown    State = "unknown"
)

// Distro is one line of wsl.exe --list --verbose.
type Distro struct {
	Name    string
	State   State
	Version int // 1 or 2
	Default bool
	// RawState is the state word as printed, for messages.
	RawState string
}

// stateWords maps the state column, as the languages Windows ships
// print it, to a State. wsl.exe translates it; the name and version
// columns it never does.
var stateWords = map[string]State{
	// English
	"running": StateRunning, "stopped": StateStopped, "installing": StateInstalling,
	"converting": StateConverting, "uninstalling": StateStopped,
	// German
	"wird ausgeführt": StateRunning, "beendet": StateStopped, "angehalten": StateStopped,
	"wird installiert": StateInstalling, "wird konvertiert": StateConverting,
	// French
	"en cours d'exécution": StateRunning, "arrêté": StateStopped,
	"installation": StateInstalling, "conversion": StateConverting,
	// Spanish
	"en ejecución": StateRunning, "detenido": StateStopped, "instalando": StateInstalling,
	"convirtiendo": StateConverting,
}

// decode turns what wsl.exe printed into text. wsl.exe writes UTF-16LE,
// with or without a byte-order mark; with WSL_UTF8=1 set (or through
// some wrappers) it writes UTF-8, which is taken as it is.
func decode(out []byte) string {
	if bytes.HasPrefix(out, []byte{0xff, 0xfe}) {
		return decodeUTF16(out[2:])
	}
	if bytes.HasPrefix(out, []byte{0xef, 0xbb, 0xbf}) {
		return string(out[3:])
	}
	// UTF-16LE of text that is mostly ASCII has a zero in every odd byte
	if len(out) >= 2 && out[1] == 0 && out[0] != 0 {
		return decodeUTF16(out)
	}
	if utf8.Valid(out) {
		return string(out)
	}
	return decodeUTF16(out)
}

func decodeUTF16(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return strings.ReplaceAll(string(utf16.Decode(u)), "\x00", "")
}

// encodeUTF16 is the inverse of decode, as wsl.exe writes (no BOM); the
// fake wsl.exe and the tests use it.
func encodeUTF16(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

// parseList reads wsl.exe --list --verbose. The first line is a header
// (in the user's language); each further line is an optional '*' for the
// default distro, the name, the state (one or more words), and the
// version. Text that is not such a table (the message WSL prints when no
// distro is installed, in any language) gives no distros; use
// classify on the command's failure to tell WSL missing apart.
func parseList(text string) []Distro {
	var out []Distro
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	for i, line := range lines {
		if i == 0 && strings.Contains(line, "NAME") {
			continue
		}
		d, ok := parseLine(line)
		if ok {
			out = append(out, d)
		}
	}
	return out
}

func parseLine(line string) (Distro, bool) {
	var d Distro
	fields := strings.Fields(line)
	if len(fields) > 0 && fields[0] == "*" {
		d.Default, fields = true, fields[1:]
	} else if len(fields) > 0 && strings.HasPrefix(fields[0], "*") {
		d.Default, fields[0] = true, fields[0][1:]
	}
	if len(fields) < 3 {
		return Distro{}, false
	}
	v, err := strconv.Atoi(fields[len(fields)-1])
	if err != nil || (v != 1 && v != 2) || !validDistroName(fields[0]) {
		return Distro{}, false
	}
	d.Name, d.Version = fields[0], v
	d.RawState = strings.Join(fields[1:len(fields)-1], " ")
	d.State = stateWords[strings.ToLower(d.RawState)]
	if d.State == "" {
		d.State = StateUnknown
	}
	return d, true
}
