// Package plist writes and reads the XML property lists macOS reads: an
// app's Info.plist, a LaunchAgent, a signature's entitlements. It knows the
// few kinds of value those hold (strings, booleans, integers, arrays and
// dictionaries) and nothing of the binary format; it is not a general
// property-list library.
package plist

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Dict is a dictionary in the order it is written, so a file generated
// twice is the same file.
type Dict []Entry

// Entry is one key of a Dict. Value is a string, bool, int, []string,
// []any or Dict.
type Entry struct {
	Key   string
	Value any
}

const header = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
`

// Encode writes d as an XML property list, tab-indented as Xcode writes
// them.
func Encode(d Dict) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header)
	if err := write(&b, d, 0); err != nil {
		return nil, err
	}
	b.WriteString("</plist>\n")
	return b.Bytes(), nil
}

func write(b *bytes.Buffer, v any, depth int) error {
	indent := func() { b.WriteString(strings.Repeat("\t", depth)) }
	text := func(tag, s string) {
		indent()
		b.WriteString("<" + tag + ">")
		xml.EscapeText(b, []byte(s)) // writes to a buffer: cannot fail
		b.WriteString("</" + tag + ">\n")
	}
	switch v := v.(type) {
	case string:
		text("string", v)
	case bool:
		indent()
		b.WriteString("<" + strconv.FormatBool(v) + "/>\n")
	case int:
		text("integer", strconv.Itoa(v))
	case []string:
		items := make([]any, len(v))
		for i, s := range v {
			items[i] = s
		}
		return write(b, items, depth)
	case []any:
		indent()
		b.WriteString("<array>\n")
		for _, item := range v {
			if err := write(b, item, depth+1); err != nil {
				return err
			}
		}
		indent()
		b.WriteString("</array>\n")
	case Dict:
		indent()
		b.WriteString("<dict>\n")
		for _, e := range v {
			b.WriteString(strings.Repeat("\t", depth+1) + "<key>")
			xml.EscapeText(b, []byte(e.Key))
			b.WriteString("</key>\n")
			if err := write(b, e.Value, depth+1); err != nil {
				return fmt.Errorf("key %s: %w", e.Key, err)
			}
		}
		indent()
		b.WriteString("</dict>\n")
	default:
		return fmt.Errorf("a property list cannot hold a %T", v)
	}
	return nil
}

// maxDepth bounds the nesting Decode follows: the files it reads are
// small and flat, and one written by someone else may be neither.
const maxDepth = 32

// node is any element of the file, read whole before it is interpreted.
type node struct {
	XMLName xml.Name
	Text    string `xml:",chardata"`
	Nodes   []node `xml:",any"`
}

// Decode reads an XML property list whose top value is a dictionary. The
// values come back as string, bool, int64, []any and map[string]any.
func Decode(data []byte) (map[string]any, error) {
	var top node
	if err := xml.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("read property list: %w", err)
	}
	if top.XMLName.Local != "plist" {
		return nil, fmt.Errorf("read property list: the top element is <%s>, not <plist>", top.XMLName.Local)
	}
	if len(top.Nodes) != 1 {
		return nil, fmt.Errorf("read property list: %d values at the top, not one", len(top.Nodes))
	}
	v, err := top.Nodes[0].value(0)
	if err != nil {
		return nil, fmt.Errorf("read property list: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("read property list: the top value is not a dictionary")
	}
	return m, nil
}

func (n node) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("values nested deeper than %d", maxDepth)
	}
	switch n.XMLName.Local {
	case "string":
		return n.Text, nil
	case "integer":
		i, err := strconv.ParseInt(strings.TrimSpace(n.Text), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("integer %q: %w", n.Text, err)
		}
		return i, nil
	case "true", "false":
		return n.XMLName.Local == "true", nil
	case "array":
		items := make([]any, 0, len(n.Nodes))
		for _, c := range n.Nodes {
			v, err := c.value(depth + 1)
			if err != nil {
				return nil, err
			}
			items = append(items, v)
		}
		return items, nil
	case "dict":
		if len(n.Nodes)%2 != 0 {
			return nil, errors.New("a dictionary with a key and no value")
		}
		m := make(map[string]any, len(n.Nodes)/2)
		for i := 0; i < len(n.Nodes); i += 2 {
			k := n.Nodes[i]
			if k.XMLName.Local != "key" {
				return nil, fmt.Errorf("<%s> where a dictionary's <key> belongs", k.XMLName.Local)
			}
			v, err := n.Nodes[i+1].value(depth + 1)
			if err != nil {
				return nil, fmt.Errorf("key %s: %w", k.Text, err)
			}
			m[k.Text] = v
		}
		return m, nil
	default:
		return nil, fmt.Errorf("unknown element <%s>", n.XMLName.Local)
	}
}
