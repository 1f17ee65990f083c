package runtime

import (
	"sync"
	"unsafe"
)

// Nested entries. An entry opened with a parent's Context is linked into the
// parent's list of open children until it exits, so that a parent exited
// first can exit them (Java's ErrorEntryFreeException unwinding) and no
// thread count leaks. Only nested calls pay for this. The lists are guarded
// by a small table of locks hashed by parent, which keeps a lock out of
// every entry.

var nestLocks [64]struct {
	sync.Mutex
	_ [56]byte
}

func nestLock(p *SentinelEntry) *sync.Mutex {
	return &nestLocks[(uintptr(unsafe.Pointer(p))>>7)%uintptr(len(nestLocks))].Mutex
}

func (p *SentinelEntry) link(child *SentinelEntry) {
	mu := nestLock(p)
	mu.Lock()
	defer mu.Unlock()
	if p.exited.Load() {
		return // the parent is gone; the child stands alone
	}
	child.next = p.firstChild.Load()
	p.firstChild.Store(child)
	child.linked = true
}

// unlink removes child from p's list. The list holds the calls open at once
// under one parent, which is short.
func (p *SentinelEntry) unlink(child *SentinelEntry) {
	mu := nestLock(p)
	mu.Lock()
	defer mu.Unlock()
	if !child.linked {
		return
	}
	if p.firstChild.Load() == child {
		p.firstChild.Store(child.next)
	} else {
		for c := p.firstChild.Load(); c != nil; c = c.next {
			if c.next == child {
				c.next = child.next
				break
			}
		}
	}
	child.next, child.linked = nil, false
}

// exitNested runs as e exits: it leaves its parent's list, and exits its own
// open children first, newest first.
func (e *SentinelEntry) exitNested() {
	if p := e.call.parent; p != nil {
		p.unlink(e)
	}
	for {
		child := e.firstChild.Load()
		if child == nil {
			return
		}
		Logger().Warn("sentinel: entry exited before its nested entry; exiting the nested entry first",
			"resource", safeAttr(e.call.res.name), "nested", safeAttr(child.call.res.name))
		child.Exit()
		// A child that had already exited on another goroutine may not
		// have unlinked itself yet; make sure the loop moves on.
		e.unlink(child)
	}
}
