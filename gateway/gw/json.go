package gw

import (
	"bytes"
	"encoding/base64"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// planJSON is the gateway's JSON marshaler: the JSON that protojson writes
// under the gateway's options (UseProtoNames, EmitUnpopulated), written
// from a per-type plan instead of protojson's reflection walk.
//
// protojson's marshalling of a search page was 12 % of the stack's CPU
// under a search load at 1 M projects (bench/README.md): per message it
// allocates and sorts the field list, calls a closure per field and checks
// presence of every field. A plan holds each message type's fields in
// declaration order (protojson's order) with their rendered names, built
// once. Types the plan does not cover (well-known types, maps, groups,
// extensions, recursive types) and strings that are not valid UTF-8 (an
// error in protojson) go to protojson. TestPlanJSONAsProtojson compares
// both, byte for byte after json.Compact, on every message type of the
// API filled at random. No library here generates such encoders for
// protobuf-go messages without replacing protojson's output rules.
type planJSON struct {
	*runtime.JSONPb
}

func (j *planJSON) Marshal(v any) ([]byte, error) {
	if m, ok := v.(proto.Message); ok {
		if rm := m.ProtoReflect(); rm.IsValid() {
			if p := jsonPlanFor(rm.Descriptor()); p != nil {
				buf := jsonBuffers.Get().(*[]byte)
				out, ok := p.appendMessage((*buf)[:0], rm)
				if *buf = out; cap(out) <= 1<<20 {
					defer jsonBuffers.Put(buf) // not a large export's
				}
				if ok {
					return bytes.Clone(out), nil
				}
			}
		}
	}
	return j.JSONPb.Marshal(v)
}

// jsonBuffers are the plan's scratch buffers: the answer is copied out
// once at its size instead of growing by doubling (a search page is
// ~12 kB).
var jsonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// msgPlan is how one message type is written: its fields in declaration
// order.
type msgPlan struct {
	fields []fieldPlan
}

type fieldPlan struct {
	fd       protoreflect.FieldDescriptor
	name     []byte // `"name":`
	oneof    bool   // in a oneof (proto3 optional too): written only when set
	presence bool   // a singular field with presence (a message): null when unset
	sub      *msgPlan
}

var (
	jsonPlansMu sync.RWMutex
	jsonPlans   = map[protoreflect.FullName]*msgPlan{} // nil: not covered
)

// jsonPlanFor returns md's plan, nil when protojson must write it.
func jsonPlanFor(md protoreflect.MessageDescriptor) *msgPlan {
	jsonPlansMu.RLock()
	p, ok := jsonPlans[md.FullName()]
	jsonPlansMu.RUnlock()
	if ok {
		return p
	}
	p = buildJSONPlan(md, map[protoreflect.FullName]bool{})
	jsonPlansMu.Lock()
	jsonPlans[md.FullName()] = p
	jsonPlansMu.Unlock()
	return p
}

func buildJSONPlan(md protoreflect.MessageDescriptor, building map[protoreflect.FullName]bool) *msgPlan {
	if md.ParentFile().Package() == "google.protobuf" || md.ExtensionRanges().Len() > 0 || building[md.FullName()] {
		return nil // well-known types have their own JSON; extensions; recursion
	}
	building[md.FullName()] = true
	defer delete(building, md.FullName())
	fds := md.Fields()
	p := &msgPlan{fields: make([]fieldPlan, fds.Len())}
	for i := range fds.Len() {
		fd := fds.Get(i)
		f := fieldPlan{fd: fd, oneof: fd.ContainingOneof() != nil}
		f.presence = !f.oneof && !fd.IsList() && fd.HasPresence()
		switch fd.Kind() {
		case protoreflect.GroupKind:
			return nil
		case protoreflect.MessageKind:
			if fd.IsMap() {
				return nil
			}
			if f.sub = buildJSONPlan(fd.Message(), building); f.sub == nil {
				return nil
			}
		case protoreflect.EnumKind:
			if fd.Enum().FullName() == "google.protobuf.NullValue" {
				return nil
			}
		}
		name, _ := appendJSONString(nil, fd.TextName())
		f.name = append(name, ':')
		p.fields[i] = f
	}
	return p
}

// appendMessage writes m; ok is false when a string is not valid UTF-8.
func (p *msgPlan) appendMessage(out []byte, m protoreflect.Message) ([]byte, bool) {
	out = append(out, '{')
	first := true
	for i := range p.fields {
		f := &p.fields[i]
		if (f.oneof || f.presence) && !m.Has(f.fd) {
			if f.oneof {
				continue
			}
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(append(out, f.name...), "null"...)
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, f.name...)
		v := m.Get(f.fd)
		var ok bool
		if f.fd.IsList() {
			l := v.List()
			out = append(out, '[')
			for j := range l.Len() {
				if j > 0 {
					out = append(out, ',')
				}
				if out, ok = f.appendValue(out, l.Get(j)); !ok {
					return out, false
				}
			}
			out = append(out, ']')
			continue
		}
		if out, ok = f.appendValue(out, v); !ok {
			return out, false
		}
	}
	return append(out, '}'), true
}

// appendValue writes one value of f's kind as protojson does.
func (f *fieldPlan) appendValue(out []byte, v protoreflect.Value) ([]byte, bool) {
	switch f.fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.AppendBool(out, v.Bool()), true
	case protoreflect.StringKind:
		return appendJSONString(out, v.String())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(out, v.Int(), 10), true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(out, v.Uint(), 10), true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		// 64-bit integers are JSON strings
		return append(strconv.AppendInt(append(out, '"'), v.Int(), 10), '"'), true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return append(strconv.AppendUint(append(out, '"'), v.Uint(), 10), '"'), true
	case protoreflect.FloatKind:
		return appendJSONFloat(out, v.Float(), 32), true
	case protoreflect.DoubleKind:
		return appendJSONFloat(out, v.Float(), 64), true
	case protoreflect.BytesKind:
		out = append(out, '"')
		out = base64.StdEncoding.AppendEncode(out, v.Bytes())
		return append(out, '"'), true
	case protoreflect.EnumKind:
		if d := f.fd.Enum().Values().ByNumber(v.Enum()); d != nil {
			return append(append(append(out, '"'), d.Name()...), '"'), true
		}
		return strconv.AppendInt(out, int64(v.Enum()), 10), true
	case protoreflect.MessageKind:
		return f.sub.appendMessage(out, v.Message())
	}
	return out, false
}

// appendJSONString writes s as a JSON string, escaping as protojson does
// ('"', '\\' and control characters); ok is false when s is not valid
// UTF-8. The characters escaped are ASCII, never inside a multi-byte
// sequence, so a byte scan finds them.
func appendJSONString(out []byte, s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return out, false
	}
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= ' ' && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[start:i]...)
		out = append(out, '\\')
		switch c {
		case '"', '\\':
			out = append(out, c)
		case '\b':
			out = append(out, 'b')
		case '\f':
			out = append(out, 'f')
		case '\n':
			out = append(out, 'n')
		case '\r':
			out = append(out, 'r')
		case '\t':
			out = append(out, 't')
		default:
			out = append(out, 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		}
		start = i + 1
	}
	out = append(out, s[start:]...)
	return append(out, '"'), true
}

// appendJSONFloat writes n as protojson does (its internal/encoding/json
// appendFloat, which follows encoding/json; BSD-3-Clause, The Go Authors).
func appendJSONFloat(out []byte, n float64, bitSize int) []byte {
	switch {
	case math.IsNaN(n):
		return append(out, `"NaN"`...)
	case math.IsInf(n, +1):
		return append(out, `"Infinity"`...)
	case math.IsInf(n, -1):
		return append(out, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(n); abs != 0 {
		if bitSize == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bitSize == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	out = strconv.AppendFloat(out, n, format, -1, bitSize)
	if format == 'e' {
		n := len(out)
		if n >= 4 && out[n-4] == 'e' && out[n-3] == '-' && out[n-2] == '0' {
			out[n-2] = out[n-1]
			out = out[:n-1]
		}
	}
	return out
}
