package runtime

// Nested entries. An entry opened with a parent's Context is linked into the
// parent's list of open children until it exits, so that a parent exited
// first can exit them (Java's ErrorEntryFreeException unwinding) and no
// thread count leaks. Only nested calls pay for this.

func (p *SentinelEntry) link(child *SentinelEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited.Load() {
		return // the parent is gone; the child stands alone
	}
	child.next = p.firstChild
	if p.firstChild != nil {
		p.firstChild.prev = child
	}
	p.firstChild = child
	child.linked = true
}

func (p *SentinelEntry) unlink(child *SentinelEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !child.linked {
		return
	}
	if child.prev != nil {
		child.prev.next = child.next
	} else {
		p.firstChild = child.next
	}
	if child.next != nil {
		child.next.prev = child.prev
	}
	child.prev, child.next, child.linked = nil, nil, false
}

// exitChildren exits the entry's open children, newest first.
func (e *SentinelEntry) exitChildren() {
	for {
		e.mu.Lock()
		child := e.firstChild
		e.mu.Unlock()
		if child == nil {
			return
		}
		Logger().Warn("sentinel: entry exited before its nested entry; exiting the nested entry first",
			"resource", e.call.res.name, "nested", child.call.res.name)
		child.Exit()
		// Exit unlinks the child; unlink again in case it had already
		// exited on another goroutine and skipped its own unlink.
		e.unlink(child)
	}
}
