// Command csi-descriptor writes the CSI messages and services as the JSON protobufjs loads
// (src/csi/descriptor.json), from the file descriptor the CSI spec's Go package embeds
// (csi.File_csi_proto) and the well-known types it imports: no .proto file is read or copied.
//
// The output is protobufjs's reflection JSON: nested namespaces, messages with their fields
// (id, type, repeated rule, map key type), oneofs, enums and services. Every type reference is
// fully qualified (".csi.v1.Topology"). Of CSI's custom options only csi_secret is kept, as the
// field option "(csi.v1.csi_secret)": the client reads it to leave secrets out of its logs.
// google/protobuf/descriptor.proto is imported by csi.proto only to declare those options, so it
// is not written.
//
// Run from tools/csi: go run ./cmd/csi-descriptor ../../src/csi/descriptor.json
// (npm run csi:generate).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

const specModule = "github.com/container-storage-interface/spec"

// object is a JSON object whose keys keep the order they were added in (declaration order), so
// the generated file reads like the spec.
type object struct {
	keys   []string
	values map[string]any
}

func newObject() *object { return &object{values: map[string]any{}} }

func (o *object) set(key string, value any) *object {
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = value
	return o
}

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		value, err := json.Marshal(o.values[k])
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// typeName is a field's protobufjs type: the scalar's name, or the full name of its message or enum.
func typeName(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "." + string(fd.Message().FullName())
	case protoreflect.EnumKind:
		return "." + string(fd.Enum().FullName())
	default:
		return fd.Kind().String()
	}
}

func isSecret(fd protoreflect.FieldDescriptor) bool {
	opts, ok := fd.Options().(*descriptorpb.FieldOptions)
	if !ok || opts == nil {
		return false
	}
	secret, _ := proto.GetExtension(opts, csi.E_CsiSecret).(bool)
	return secret
}

func field(fd protoreflect.FieldDescriptor) *object {
	out := newObject()
	if fd.IsMap() {
		out.set("keyType", fd.MapKey().Kind().String()).set("type", typeName(fd.MapValue()))
	} else {
		if fd.Cardinality() == protoreflect.Repeated {
			out.set("rule", "repeated")
		}
		out.set("type", typeName(fd))
	}
	out.set("id", int(fd.Number()))
	if isSecret(fd) {
		out.set("options", newObject().set("(csi.v1.csi_secret)", true))
	}
	return out
}

func enum(ed protoreflect.EnumDescriptor) *object {
	values := newObject()
	for i := 0; i < ed.Values().Len(); i++ {
		v := ed.Values().Get(i)
		values.set(string(v.Name()), int(v.Number()))
	}
	return newObject().set("values", values)
}

func message(md protoreflect.MessageDescriptor) *object {
	out := newObject()
	oneofs := newObject()
	for i := 0; i < md.Oneofs().Len(); i++ {
		od := md.Oneofs().Get(i)
		var names []string
		for j := 0; j < od.Fields().Len(); j++ {
			names = append(names, string(od.Fields().Get(j).Name()))
		}
		oneofs.set(string(od.Name()), newObject().set("oneof", names))
	}
	if len(oneofs.keys) > 0 {
		out.set("oneofs", oneofs)
	}
	fields := newObject()
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		fields.set(string(fd.Name()), field(fd))
	}
	out.set("fields", fields)
	nested := newObject()
	addTypes(nested, md.Enums(), md.Messages())
	if len(nested.keys) > 0 {
		out.set("nested", nested)
	}
	return out
}

// addTypes adds the enums and messages of one scope; map entry messages are implicit in
// protobufjs's map fields and are left out.
func addTypes(into *object, enums protoreflect.EnumDescriptors, messages protoreflect.MessageDescriptors) {
	for i := 0; i < enums.Len(); i++ {
		into.set(string(enums.Get(i).Name()), enum(enums.Get(i)))
	}
	for i := 0; i < messages.Len(); i++ {
		md := messages.Get(i)
		if !md.IsMapEntry() {
			into.set(string(md.Name()), message(md))
		}
	}
}

func service(sd protoreflect.ServiceDescriptor) *object {
	methods := newObject()
	for i := 0; i < sd.Methods().Len(); i++ {
		m := sd.Methods().Get(i)
		method := newObject().
			set("requestType", "."+string(m.Input().FullName())).
			set("responseType", "."+string(m.Output().FullName()))
		if m.IsStreamingClient() {
			method.set("requestStream", true)
		}
		if m.IsStreamingServer() {
			method.set("responseStream", true)
		}
		methods.set(string(m.Name()), method)
	}
	return newObject().set("methods", methods)
}

// namespaceOf returns the nested object of a package ("csi.v1"), creating the levels it needs.
func namespaceOf(root *object, pkg protoreflect.FullName) *object {
	ns := root
	for _, part := range strings.Split(string(pkg), ".") {
		next, ok := ns.values[part].(*object)
		if !ok {
			next = newObject().set("nested", newObject())
			ns.set(part, next)
		}
		ns = next.values["nested"].(*object)
	}
	return ns
}

func addFile(root *object, fd protoreflect.FileDescriptor) {
	ns := namespaceOf(root, fd.Package())
	addTypes(ns, fd.Enums(), fd.Messages())
	for i := 0; i < fd.Services().Len(); i++ {
		ns.set(string(fd.Services().Get(i).Name()), service(fd.Services().Get(i)))
	}
}

func specVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == specModule {
				return dep.Version
			}
		}
	}
	fmt.Fprintln(os.Stderr, "csi-descriptor: cannot read the version of "+specModule+" from the build info")
	os.Exit(1)
	return ""
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: csi-descriptor OUTPUT.json")
		os.Exit(2)
	}
	version := specVersion()
	root := newObject()
	file := csi.File_csi_proto
	for i := 0; i < file.Imports().Len(); i++ {
		imp := file.Imports().Get(i)
		if imp.Path() != "google/protobuf/descriptor.proto" {
			addFile(root, imp.FileDescriptor)
		}
	}
	addFile(root, file)
	doc := newObject().
		set("comment", fmt.Sprintf("Generated by tools/csi/cmd/csi-descriptor from the file descriptor embedded in %s %s (lib/go/csi) and the well-known types it imports (cd tools/csi && go run ./cmd/csi-descriptor ../../src/csi/descriptor.json). Do not edit.", specModule, version)).
		set("specModule", specModule).
		set("specVersion", version).
		set("nested", root)
	out, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "csi-descriptor:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[1], append(out, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "csi-descriptor:", err)
		os.Exit(1)
	}
}
