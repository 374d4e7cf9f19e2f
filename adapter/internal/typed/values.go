package typed

import "reflect"

// SameValue reports whether a and b are the same value: the same map, slice
// or pointer, or equal values of other kinds.
func SameValue(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	switch va.Kind() {
	case reflect.Map, reflect.Pointer:
		return va.UnsafePointer() == vb.UnsafePointer()
	case reflect.Slice:
		return va.UnsafePointer() == vb.UnsafePointer() && va.Len() == vb.Len()
	}
	// Struct and array values: DeepEqual short-cuts shared slices and maps.
	return reflect.DeepEqual(a, b)
}

// IsNil reports whether v is nil or a nil pointer, map, interface or slice.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface, reflect.Slice:
		return rv.IsNil()
	}
	return false
}
