package web

import (
	"sync/atomic"
	"unsafe"
)

// Wrapped remembers what a middleware made of the handlers it wrapped
// lately, for routers that apply their middleware to a route's handler on
// every request (echo, gorilla/mux): the same handler gets back what it
// got before, with no allocation. Slots are picked by the handler's
// address, each kept by the first handler that lands in it; the others
// are wrapped anew each time, as without the slots. The zero Wrapped is
// empty and ready.
type Wrapped[H any] struct {
	slots [wrappedSlots]atomic.Pointer[wrappedEntry[H]]
}

const wrappedSlots = 64 // a power of two: routes of one router, mostly

// HandlerKey is a handler's identity: the two words of the interface or
// function value that holds it (Type nil for a function). The same words
// are the same handler, and the slot keeps the handler alive, so its
// address cannot come to serve another.
type HandlerKey struct{ Type, Data unsafe.Pointer }

type wrappedEntry[H any] struct {
	key HandlerKey
	h   H
}

// Get returns what was made for the handler key before, or what build
// makes now.
func (w *Wrapped[H]) Get(key HandlerKey, build func() H) H {
	p := uintptr(key.Data)
	slot := &w.slots[(p>>4^p>>10)&(wrappedSlots-1)]
	if e := slot.Load(); e != nil && e.key == key {
		return e.h
	}
	h := build()
	if key != (HandlerKey{}) {
		slot.CompareAndSwap(nil, &wrappedEntry[H]{key: key, h: h})
	}
	return h
}
