package gw

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	projectsv1 "bidradar/gen/projects/v1"
)

// The plan writes what protojson writes under the gateway's options, for
// every message type of the API (request and response), each filled at
// random 200 times: strings with quotes, control characters, Thai and
// invalid UTF-8, the float edge cases, 64-bit extremes, unknown enum
// numbers, unset messages and oneofs, maps (which go to protojson).
func TestPlanJSONAsProtojson(t *testing.T) {
	pb := &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}}
	fast := &planJSON{JSONPb: pb}
	r := rand.New(rand.NewPCG(7, 11))
	types, planned := 0, 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		md := mt.Descriptor()
		if path := md.ParentFile().Path(); strings.HasPrefix(path, "google/") || strings.HasPrefix(path, "grpc/") {
			return true
		}
		types++
		if jsonPlanFor(md) != nil {
			planned++
		}
		for i := range 200 {
			m := mt.New()
			if i > 0 {
				fillRandom(r, m, 0)
			}
			got, gerr := fast.Marshal(m.Interface())
			want, werr := pb.Marshal(m.Interface())
			if (gerr != nil) != (werr != nil) {
				t.Fatalf("%s: plan error %v, protojson error %v", md.FullName(), gerr, werr)
			}
			if werr != nil {
				continue
			}
			var g, w bytes.Buffer
			if err := json.Compact(&g, got); err != nil {
				t.Fatalf("%s: plan wrote invalid JSON %s: %v", md.FullName(), got, err)
			}
			if err := json.Compact(&w, want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(g.Bytes(), w.Bytes()) {
				t.Fatalf("%s:\nplan      %s\nprotojson %s", md.FullName(), g.Bytes(), w.Bytes())
			}
		}
		return true
	})
	t.Logf("%d message types, %d written by plan", types, planned)
	if types < 50 {
		t.Fatalf("only %d API message types registered", types)
	}
	// the responses of the load's hot routes are planned, not sent back
	for _, m := range []protoreflect.ProtoMessage{&projectsv1.ListProjectsResponse{}, &projectsv1.ProjectSummary{}} {
		if jsonPlanFor(m.ProtoReflect().Descriptor()) == nil {
			t.Errorf("%T is written by protojson, not by a plan", m)
		}
	}
}

var randomStrings = []string{"", "ถนนลาดยาง หมู่ที่ 5", "a\"b\\c/d", "\x00\x01\x1f\x7f", "\t\n\r\b\f", "<>&'", "\u2028\u2029", "😀", "plain", "\xff\xfe"}

func fillRandom(r *rand.Rand, m protoreflect.Message, depth int) {
	fds := m.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if r.IntN(3) == 0 {
			continue // unset
		}
		if o := fd.ContainingOneof(); o != nil && m.WhichOneof(o) != nil {
			continue
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for range r.IntN(3) {
				k := randomValue(r, fd.MapKey(), nil, depth)
				mp.Set(k.MapKey(), randomValue(r, fd.MapValue(), func() protoreflect.Message { return mp.NewValue().Message() }, depth))
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range r.IntN(4) {
				l.Append(randomValue(r, fd, func() protoreflect.Message { return l.NewElement().Message() }, depth))
			}
		case fd.Kind() == protoreflect.MessageKind && depth > 3:
		default:
			m.Set(fd, randomValue(r, fd, func() protoreflect.Message { return m.NewField(fd).Message() }, depth))
		}
	}
}

func randomValue(r *rand.Rand, fd protoreflect.FieldDescriptor, newMsg func() protoreflect.Message, depth int) protoreflect.Value {
	ints := []int64{0, 1, -1, 42, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, r.Int64()}
	floats := []float64{0, math.Copysign(0, -1), 1.5, 1e21, 1e-7, 123456789.125, 0.1, math.NaN(), math.Inf(1), math.Inf(-1), r.NormFloat64() * 1e6}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(r.IntN(2) == 0)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(randomStrings[r.IntN(len(randomStrings))])
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(ints[r.IntN(len(ints))]))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(ints[r.IntN(len(ints))]))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(ints[r.IntN(len(ints))])
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(ints[r.IntN(len(ints))]))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(floats[r.IntN(len(floats))]))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(floats[r.IntN(len(floats))])
	case protoreflect.BytesKind:
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return protoreflect.ValueOfBytes(b)
	case protoreflect.EnumKind:
		if vals := fd.Enum().Values(); vals.Len() > 0 && r.IntN(4) > 0 {
			return protoreflect.ValueOfEnum(vals.Get(r.IntN(vals.Len())).Number())
		}
		return protoreflect.ValueOfEnum(999) // unknown: written as a number
	default: // message
		m := newMsg()
		fillRandom(r, m, depth+1)
		return protoreflect.ValueOfMessage(m)
	}
}

// BenchmarkSearchPageJSON: a search page of 10 projects, protojson against
// the plan.
//
//	go test ./gw -run '^$' -bench SearchPageJSON
func BenchmarkSearchPageJSON(b *testing.B) {
	page := &projectsv1.ListProjectsResponse{}
	for i := range 10 {
		page.Data = append(page.Data, &projectsv1.ProjectSummary{
			ProjectId: "6901" + strings.Repeat("0", 7) + string(rune('0'+i)), ProjectName: "จ้างเหมาก่อสร้างถนนคอนกรีตเสริมเหล็ก หมู่ที่ 5 บ้านวังช้าง ตำบลหนองบัว",
			DeptName: "องค์การบริหารส่วนตำบลหนองบัว", MinistryName: "กระทรวงมหาดไทย", ProvinceCode: "40", ProvinceName: "ขอนแก่น",
			MethodCode: "16", MethodName: "e-bidding", Status: "open", StatusName: "เปิดรับข้อเสนอ", Budget: proto.Float64(1234567.5), BudgetYear: 2569,
			AnnounceDate: "2026-11-20", SubmissionDue: "2026-12-04", EgpUrl: "https://process3.gprocurement.go.th/egp2procmainWeb/jsp/procsearch.sch?x=1",
			MatchedKeywords: []string{"ถนน"},
		})
	}
	pb := &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}}
	for _, m := range []struct {
		name string
		m    runtime.Marshaler
	}{{"protojson", pb}, {"plan", &planJSON{JSONPb: pb}}} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.m.Marshal(page); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
