package javahash

// Set is the part of java.util.HashSet (Java 17's HashMap underneath) that
// decides its iteration order: elements added with their Java hashCode, and
// Elements in the order a HashSet's iterator, or new ArrayList<>(set),
// returns them. HashSet.add of an element equal to one present changes
// nothing, so the caller drops such elements before Add (by a map, which
// costs O(1) even when many elements share a hash code, where comparing
// with each one of the bin would cost O(n)); an insertion costs what
// Java's does, O(log n) in a tree bin.
//
// That order is HashMap's: a table of 16 bins, doubled (each bin split in
// two, keeping the relative order of its elements) when it holds more than
// 0.75 of its size; an element's bin is its hashCode spread as
// h ^ (h >>> 16), masked by the table size; bins in index order, a bin's
// elements in the order they came. A bin that reaches 9 elements doubles the
// table while it has fewer than 64 bins, and becomes a red-black tree after
// that (tree.go), which reorders it: the tree's root first, a new element
// after its parent in the tree.
//
// Elements are taken not to be Comparable (Sentinel's rules are not). Two
// elements of equal hashCode that are not equal, in a tree bin, are ordered
// by Java's identity hashes, which differ from run to run; there the later
// one is taken as the smaller.
//
// The zero value is not usable: use NewSet.
type Set[T any] struct {
	table     []*node[T]
	size      int
	threshold int
	free      []node[T] // nodes allocated ahead, a chunk at a time
}

// node is HashMap's Node, and its TreeNode once its bin is a tree.
type node[T any] struct {
	hash int32 // the spread hashCode
	elem T
	next *node[T]

	// Tree bins only (Java's TreeNode).
	tree                      bool
	parent, left, right, prev *node[T]
	red                       bool
}

// HashMap's constants.
const (
	initialCapacity   = 16 // DEFAULT_INITIAL_CAPACITY
	treeifyThreshold  = 8  // TREEIFY_THRESHOLD
	untreeifyMax      = 6  // UNTREEIFY_THRESHOLD
	minTreeifyTableLn = 64 // MIN_TREEIFY_CAPACITY
)

// NewSet returns an empty set: new HashSet<>().
func NewSet[T any]() *Set[T] { return &Set[T]{} }

// spread is HashMap.hash: the high half of the hashCode folded into the low.
func spread(h int32) int32 { return h ^ int32(uint32(h)>>16) }

// Add adds e, whose Java hashCode is hashCode and which equals no element
// present (HashSet.add of a new element).
func (s *Set[T]) Add(e T, hashCode int32) {
	h := spread(hashCode)
	if s.table == nil {
		s.resize()
	}
	i := s.index(h)
	switch head := s.table[i]; {
	case head == nil:
		s.table[i] = s.newNode(h, e)
	case head.tree:
		s.putTree(head, h, e)
	default:
		n, tail := 1, head
		for ; tail.next != nil; n++ {
			tail = tail.next
		}
		tail.next = s.newNode(h, e)
		if n >= treeifyThreshold { // the bin now holds 9 or more
			s.treeifyBin(h)
		}
	}
	s.size++
	if s.size > s.threshold {
		s.resize()
	}
}

// newNode returns a node for e, from a chunk allocated ahead (as many as
// the set holds, 8 to 1,024), so that a set costs a few allocations rather
// than one per element.
func (s *Set[T]) newNode(h int32, e T) *node[T] {
	if len(s.free) == 0 {
		s.free = make([]node[T], min(max(s.size, 8), 1024))
	}
	n := &s.free[0]
	s.free = s.free[1:]
	n.hash, n.elem = h, e
	return n
}

// Len is the number of elements.
func (s *Set[T]) Len() int { return s.size }

// Elements returns the elements in the set's iteration order.
func (s *Set[T]) Elements() []T {
	out := make([]T, 0, s.size)
	for _, p := range s.table {
		for ; p != nil; p = p.next {
			out = append(out, p.elem)
		}
	}
	return out
}

func (s *Set[T]) index(h int32) int { return int(uint32(h) & uint32(len(s.table)-1)) }

// resize is HashMap.resize: 16 bins at first, then twice as many, each bin
// split into the one at the same index and the one oldCap further, in order.
func (s *Set[T]) resize() {
	old := s.table
	if old == nil {
		s.table = make([]*node[T], initialCapacity)
		s.threshold = initialCapacity * 3 / 4
		return
	}
	oldCap := len(old)
	s.table = make([]*node[T], 2*oldCap)
	s.threshold *= 2
	for j, e := range old {
		switch {
		case e == nil:
		case e.next == nil:
			s.table[s.index(e.hash)] = e
		case e.tree:
			s.split(e, j, oldCap)
		default:
			var lo, hi chain[T]
			for e != nil {
				next := e.next
				if uint32(e.hash)&uint32(oldCap) == 0 {
					lo.push(e)
				} else {
					hi.push(e)
				}
				e = next
			}
			s.table[j], s.table[j+oldCap] = lo.head, hi.head
		}
	}
}

// chain builds a bin's list in order, keeping tree nodes' prev links.
type chain[T any] struct {
	head, tail *node[T]
	n          int
}

func (c *chain[T]) push(e *node[T]) {
	e.next = nil
	e.prev = c.tail
	if c.tail == nil {
		c.head = e
	} else {
		c.tail.next = e
	}
	c.tail = e
	c.n++
}

// treeifyBin is HashMap.treeifyBin: a bin grown to 9 doubles a table of
// fewer than 64 bins, and becomes a tree otherwise.
func (s *Set[T]) treeifyBin(h int32) {
	if len(s.table) < minTreeifyTableLn {
		s.resize()
		return
	}
	head := s.table[s.index(h)]
	var prev *node[T]
	for p := head; p != nil; p = p.next {
		p.tree, p.prev = true, prev
		prev = p
	}
	s.treeify(head)
}
