package ipc

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandboxdesk/stream"
)

// The protocol's document and schema sit in docs/. `go test ./ipc -run
// Schema -update` rewrites the schema from the Go types.
const (
	protocolDoc    = "../docs/protocol.md"
	protocolSchema = "../docs/protocol.schema.json"
)

var update = flag.Bool("update", false, "rewrite docs/protocol.schema.json from the Go types")

// replies names what answers each request. A request added to the
// protocol without a line here fails TestSchemaIsCurrent, so it cannot
// ship undocumented.
var replies = map[string]any{
	"hello":            Hello{},
	"create":           Sandbox{},
	"list":             []Sandbox{},
	"inspect":          Sandbox{},
	"stop":             Sandbox{},
	"remove":           RemoveReply{},
	"defaults":         Defaults{},
	"capacity":         Capacity{},
	"limits":           Limits{},
	"setLimits":        Limits{},
	"setDefaultMemory": Defaults{},
	"images":           []Image{},
	"importImage":      Image{},
	"removeImage":      RemoveReply{},
	"pullImage":        Image{},
	"catalogue":        Catalogue{},
	"setCatalogue":     Catalogue{},
	"quit":             Empty{},
	"status":           Status{},
	"ranges":           Ranges{},
	"subscribe":        Empty{}, // then one Event per line
	"exec":             nil,     // no reply line: stream frames
}

// schemaGen turns Go types into JSON Schema (2020-12) the way
// encoding/json writes them: tag names, omitempty fields optional,
// embedded structs flattened, pointers nullable.
type schemaGen struct{ defs map[string]any }

func (g *schemaGen) of(t reflect.Type) map[string]any {
	if t == reflect.TypeFor[time.Time]() {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return map[string]any{"description": "the reply type its request names (see replies)"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.of(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Struct:
		name := defName(t)
		if _, seen := g.defs[name]; !seen {
			g.defs[name] = nil // a placeholder against recursion
			g.defs[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	panic("schema: no JSON form for " + t.String())
}

// defName names a struct's definition: its Go name, qualified when it
// comes from another package (stream.Size is not ipc's Size), and the
// unexported wire types by what they are.
func defName(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[reply]():
		return "Reply"
	case reflect.TypeFor[wireError]():
		return "Error"
	}
	if t.PkgPath() != reflect.TypeFor[reply]().PkgPath() {
		return path.Base(t.PkgPath()) + "." + t.Name()
	}
	return t.Name()
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props, required := map[string]any{}, []string{}
	g.fields(t, props, &required)
	sort.Strings(required)
	obj := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		obj["required"] = required
	}
	return obj
}

func (g *schemaGen) fields(t reflect.Type, props map[string]any, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" {
			g.fields(f.Type, props, required)
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		props[name] = g.of(f.Type)
		if !strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer {
			*required = append(*required, name)
		}
	}
}

// schema is the whole protocol as JSON Schema: every request envelope,
// the reply each gets, the reply line, and the event line.
func schema(t *testing.T) []byte {
	g := &schemaGen{defs: map[string]any{}}
	var requests []any
	answers := map[string]any{}
	for _, kind := range NewHello().Requests {
		rep, ok := replies[kind]
		if !ok {
			t.Fatalf("request %q has no reply in the replies table: say what answers it", kind)
		}
		req := reflect.TypeOf(deref(newRequest[kind]()))
		requests = append(requests, map[string]any{
			"type": "object", "required": []string{"type"},
			"properties": map[string]any{"type": map[string]any{"const": kind}, "body": g.of(req)},
		})
		if rep == nil {
			answers[kind] = map[string]any{"description": "no reply line: the connection carries stream frames"}
		} else {
			answers[kind] = g.of(reflect.TypeOf(rep))
		}
	}
	for kind := range replies {
		if _, ok := newRequest[kind]; !ok {
			t.Fatalf("the replies table names %q, which is no request", kind)
		}
	}
	g.defs["Request"] = map[string]any{"oneOf": requests}
	g.of(reflect.TypeFor[reply]())
	g.of(reflect.TypeFor[Event]())
	doc := map[string]any{
		"$schema":         "https://json-schema.org/draft/2020-12/schema",
		"title":           "sandboxdesk control protocol",
		"description":     "Generated from the Go types by ipc/schema_test.go; see docs/protocol.md.",
		"protocolVersion": ProtocolVersion,
		"$ref":            "#/$defs/Request",
		"replies":         answers,
		"$defs":           g.defs,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestSchemaIsCurrent(t *testing.T) {
	got := schema(t)
	if *update {
		if err := os.WriteFile(protocolSchema, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(protocolSchema)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/protocol.schema.json differs from the Go types: run `go test ./ipc -run Schema -update`, then say what changed in docs/protocol.md")
	}
}

// TestProtocolDocNamesEverything: every request, error kind, event kind
// and frame type has its place in docs/protocol.md, and the version there
// is this one.
func TestProtocolDocNamesEverything(t *testing.T) {
	b, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var want []string
	for _, kind := range NewHello().Requests {
		want = append(want, "### `"+kind+"`")
	}
	for name := range kinds {
		want = append(want, "`"+name+"`")
	}
	for _, k := range []EventKind{EventState, EventProgress, EventNotice} {
		want = append(want, "`"+string(k)+"`")
	}
	for _, f := range features {
		want = append(want, "`"+f+"`")
	}
	for _, f := range frames {
		want = append(want, fmt.Sprintf("| %d | `%s` |", f.typ, f.name))
	}
	want = append(want, "Protocol version: "+strconv.Itoa(ProtocolVersion))
	// every field a client sends, and every field of a sandbox or an
	// event, is named (in an example or in the text)
	fields := map[string]bool{}
	for _, kind := range NewHello().Requests {
		fieldNames(reflect.TypeOf(deref(newRequest[kind]())), fields)
	}
	fieldNames(reflect.TypeFor[Sandbox](), fields)
	fieldNames(reflect.TypeFor[Event](), fields)
	for f := range fields {
		if !strings.Contains(doc, `"`+f+`"`) && !strings.Contains(doc, "`"+f+"`") {
			t.Errorf("docs/protocol.md never names the field %s", f)
		}
	}
	for _, w := range want {
		if !strings.Contains(doc, w) {
			t.Errorf("docs/protocol.md lacks %s", w)
		}
	}
}

// frames are the exec stream's frame types as the document names them.
var frames = []struct {
	typ  byte
	name string
}{
	{stream.Stdin, "stdin"}, {stream.Stdout, "stdout"}, {stream.Stderr, "stderr"}, {stream.Exit, "exit"},
	{stream.StdinClose, "stdinClose"}, {stream.Signal, "signal"}, {stream.Error, "error"}, {stream.Resize, "resize"},
	{stream.ErrorKind, "errorKind"}, {stream.Credit, "credit"},
}

// fieldNames adds the JSON names of t's fields (embedded ones flattened).
func fieldNames(t reflect.Type, into map[string]bool) {
	props := map[string]any{}
	(&schemaGen{defs: map[string]any{}}).fields(t, props, new([]string))
	for name := range props {
		into[name] = true
	}
}
