// Command protobuf-schema writes the protobuf message descriptor the embedded API server
// encodes and decodes with (packages/apiserver/src/protobuf/schema.json). It walks, by reflection, the Go
// types of the group-versions the server serves and reads each field's `protobuf:"..."` and
// `json:"..."` struct tags: the wire numbers and kinds come from the types themselves, so no
// .proto file is needed. The hand-written (un)marshallers of apimachinery's special types
// (Time, MicroTime, Quantity, IntOrString, RawExtension, FieldsV1) are named as
// special; their wire shape is stated here from their *_proto.go sources.
//
// Run from tools/k8s: go run ./cmd/protobuf-schema > ../../packages/apiserver/src/protobuf/schema.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Field is one message field: its protobuf number and name, its JSON name, and how Go's
// generated marshaller treats it (pointer fields and nil slices are left out, every other field
// is always written).
type Field struct {
	Name      string    `json:"name"`
	JSON      string    `json:"json,omitempty"`
	Number    int       `json:"number"`
	Type      string    `json:"type"`
	Repeated  bool      `json:"repeated,omitempty"`
	Map       *MapEntry `json:"map,omitempty"`
	Pointer   bool      `json:"pointer,omitempty"`
	OmitEmpty bool      `json:"omitempty,omitempty"`
	Inline    bool      `json:"inline,omitempty"`
}

// MapEntry is the key and value of a map field, written as repeated {key=1, value=2} entries
// sorted by key.
type MapEntry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Message is one message type. Special names the apimachinery type whose JSON form is not an
// object of its fields (a Time is an RFC 3339 string, a Quantity a string, ...).
type Message struct {
	Special string  `json:"special,omitempty"`
	Fields  []Field `json:"fields"`
}

// Schema is the whole descriptor: kinds by apiVersion, messages by Go type name.
type Schema struct {
	Comment  string                       `json:"comment"`
	Kinds    map[string]map[string]string `json:"kinds"`
	Messages map[string]*Message          `json:"messages"`
}

var scalars = map[reflect.Kind]string{
	reflect.String: "string", reflect.Bool: "bool", reflect.Int32: "int32", reflect.Int64: "int64",
	reflect.Int: "int64", reflect.Uint32: "uint32", reflect.Uint64: "uint64", reflect.Float64: "double",
	reflect.Float32: "float",
}

func typeName(t reflect.Type) string {
	return t.PkgPath() + "." + t.Name()
}

func field(name string, number int, typ string) Field {
	return Field{Name: name, Number: number, Type: typ}
}

func timestampFields() []Field {
	return []Field{field("seconds", 1, "int64"), field("nanos", 2, "int32")}
}

// special are apimachinery's types with hand-written protobuf and JSON forms.
var special = map[reflect.Type]*Message{
	reflect.TypeOf(metav1.Time{}):          {Special: "Time", Fields: timestampFields()},
	reflect.TypeOf(metav1.MicroTime{}):     {Special: "MicroTime", Fields: timestampFields()},
	reflect.TypeOf(resource.Quantity{}):    {Special: "Quantity", Fields: []Field{field("string", 1, "string")}},
	reflect.TypeOf(intstr.IntOrString{}):   {Special: "IntOrString", Fields: []Field{field("type", 1, "int64"), field("intVal", 2, "int32"), field("strVal", 3, "string")}},
	reflect.TypeOf(runtime.RawExtension{}): {Special: "RawExtension", Fields: []Field{field("raw", 1, "bytes")}},
	reflect.TypeOf(metav1.FieldsV1{}):      {Special: "FieldsV1", Fields: []Field{field("Raw", 1, "bytes")}},
	reflect.TypeOf(runtime.Unknown{}):      {Special: "Unknown", Fields: []Field{field("typeMeta", 1, "k8s.io/apimachinery/pkg/runtime.TypeMeta"), field("raw", 2, "bytes"), field("contentEncoding", 3, "string"), field("contentType", 4, "string")}},
	reflect.TypeOf(runtime.TypeMeta{}):     {Fields: []Field{field("apiVersion", 1, "string"), field("kind", 2, "string")}},
}

type walker struct{ messages map[string]*Message }

// fieldType is the descriptor type of a Go type; named slices that a field carries as one
// value ("opt", such as ExtraValue) become a message of repeated items.
func (w *walker) fieldType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
		return "bytes"
	}
	if t.Kind() == reflect.Slice && t.Name() != "" {
		name := typeName(t)
		if w.messages[name] == nil {
			w.messages[name] = &Message{Special: "Items", Fields: []Field{{Name: "items", Number: 1, Type: w.fieldType(t.Elem()), Repeated: true}}}
		}
		return name
	}
	if s, ok := scalars[t.Kind()]; ok {
		return s
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("unsupported Go type %v", t))
	}
	w.walk(t)
	return typeName(t)
}

func (w *walker) walk(t reflect.Type) {
	name := typeName(t)
	if w.messages[name] != nil {
		return
	}
	if m, ok := special[t]; ok {
		w.messages[name] = m
		for _, f := range m.Fields {
			if strings.Contains(f.Type, ".") {
				w.fieldType(reflect.TypeOf(runtime.TypeMeta{}))
			}
		}
		return
	}
	m := &Message{Fields: []Field{}}
	w.messages[name] = m
	for i := 0; i < t.NumField(); i++ {
		if f, ok := w.describe(t.Field(i)); ok {
			m.Fields = append(m.Fields, f)
		}
	}
	sort.Slice(m.Fields, func(a, b int) bool { return m.Fields[a].Number < m.Fields[b].Number })
}

// describe reads one struct field's tags; fields without a protobuf tag (TypeMeta, Table cells)
// are not on the wire.
func (w *walker) describe(sf reflect.StructField) (Field, bool) {
	tag := sf.Tag.Get("protobuf")
	if tag == "" || tag == "-" {
		return Field{}, false
	}
	parts := strings.Split(tag, ",")
	number, err := strconv.Atoi(parts[1])
	if err != nil {
		panic(fmt.Sprintf("%s: bad protobuf tag %q", sf.Name, tag))
	}
	f := Field{Number: number, Repeated: parts[2] == "rep"}
	for _, p := range parts[3:] {
		if v, ok := strings.CutPrefix(p, "name="); ok {
			f.Name = v
		}
	}
	jsonTag := strings.Split(sf.Tag.Get("json"), ",")
	f.JSON = jsonTag[0]
	for _, opt := range jsonTag[1:] {
		f.OmitEmpty = f.OmitEmpty || opt == "omitempty"
	}
	// encoding/json flattens an embedded struct that its tag gives no name
	f.Inline = sf.Anonymous && f.JSON == ""
	if f.Name == "" {
		f.Name = f.JSON // a few tags name no field (ResourceHealth's)
	}
	if f.JSON == f.Name || f.Inline {
		f.JSON = ""
	}
	t := sf.Type
	defer func() {
		if r := recover(); r != nil {
			panic(fmt.Sprintf("%s: %v", sf.Name, r))
		}
	}()
	f.Pointer = t.Kind() == reflect.Pointer
	switch {
	case t.Kind() == reflect.Map:
		f.Repeated = false
		f.Map = &MapEntry{Key: w.fieldType(t.Key()), Value: w.fieldType(t.Elem())}
		f.Type = "map"
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && (f.Repeated || t.Name() == ""):
		// an unnamed slice is repeated whatever its tag says ("opt" on ISCSI portals)
		f.Repeated = true
		f.Type = w.fieldType(t.Elem())
	default:
		// a value that is not a slice is one value on the wire whatever its tag says ("rep" on
		// PodStatus.QOSClass, which the generated marshaller writes once, as an optional string)
		f.Repeated = false
		f.Type = w.fieldType(t)
	}
	return f, true
}

func addGroup(s *Schema, w *walker, gv schema.GroupVersion, add func(*runtime.Scheme) error) {
	sc := runtime.NewScheme()
	if err := add(sc); err != nil {
		panic(err)
	}
	apiVersion := gv.String()
	kinds := map[string]string{}
	for kind, t := range sc.KnownTypes(gv) {
		if t.PkgPath() == reflect.TypeOf(metav1.Status{}).PkgPath() && gv.Group != "meta.k8s.io" {
			continue // the options and WatchEvent every group registers are listed under meta.k8s.io/v1
		}
		w.walk(t)
		kinds[kind] = typeName(t)
	}
	s.Kinds[apiVersion] = kinds
}

func metaTypes(sc *runtime.Scheme) error {
	gv := schema.GroupVersion{Group: "meta.k8s.io", Version: "v1"}
	sc.AddKnownTypes(gv, &metav1.Status{}, &metav1.WatchEvent{}, &metav1.DeleteOptions{}, &metav1.CreateOptions{},
		&metav1.UpdateOptions{}, &metav1.PatchOptions{}, &metav1.ListOptions{}, &metav1.GetOptions{},
		&metav1.Table{}, &metav1.TableOptions{}, &metav1.PartialObjectMetadata{}, &metav1.PartialObjectMetadataList{},
		&metav1.APIResourceList{}, &metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIVersions{}, &metav1.List{})
	return nil
}

func main() {
	s := &Schema{
		Comment: "Generated by tools/k8s/cmd/protobuf-schema from the protobuf struct tags of k8s.io/api and " +
			"k8s.io/apimachinery v0.37.2 (cd tools/k8s && go run ./cmd/protobuf-schema > ../../packages/apiserver/src/protobuf/schema.json). Do not edit.",
		Kinds:    map[string]map[string]string{},
		Messages: map[string]*Message{},
	}
	w := &walker{messages: s.Messages}
	addGroup(s, w, corev1.SchemeGroupVersion, corev1.AddToScheme)
	addGroup(s, w, appsv1.SchemeGroupVersion, appsv1.AddToScheme)
	addGroup(s, w, storagev1.SchemeGroupVersion, storagev1.AddToScheme)
	addGroup(s, w, coordinationv1.SchemeGroupVersion, coordinationv1.AddToScheme)
	addGroup(s, w, eventsv1.SchemeGroupVersion, eventsv1.AddToScheme)
	addGroup(s, w, authorizationv1.SchemeGroupVersion, authorizationv1.AddToScheme)
	addGroup(s, w, authenticationv1.SchemeGroupVersion, authenticationv1.AddToScheme)
	addGroup(s, w, schema.GroupVersion{Group: "meta.k8s.io", Version: "v1"}, metaTypes)
	w.walk(reflect.TypeOf(runtime.Unknown{}))
	out, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(out, '\n'))
}
