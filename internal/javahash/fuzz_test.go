package javahash

import (
	"encoding/binary"
	"testing"
)

// FuzzSet adds elements of arbitrary hash codes (crowded bins, tree bins,
// resizes) and checks what HashMap's own checkInvariants asserts of every
// bin, and that each element is listed once.
func FuzzSet(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 128})
	crowded := make([]byte, 0, 4*40)
	for i := range 40 {
		crowded = binary.BigEndian.AppendUint32(crowded, uint32(i)<<22|uint32(i%2)<<31)
	}
	f.Add(crowded)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewSet[int]()
		n := len(data) / 4
		for i := range n {
			h := int32(binary.BigEndian.Uint32(data[4*i:]))
			s.Add(i, h)
		}
		seen := make(map[int]bool, n)
		for _, e := range s.Elements() {
			if seen[e] {
				t.Fatalf("element %d listed twice", e)
			}
			seen[e] = true
		}
		if len(seen) != n || s.Len() != n {
			t.Fatalf("%d elements listed, %d added", len(seen), n)
		}
		for i, head := range s.table {
			for p := head; p != nil; p = p.next {
				if s.index(p.hash) != i {
					t.Fatalf("element %d in bin %d, not its own", p.elem, i)
				}
				if p.tree != head.tree {
					t.Fatalf("bin %d mixes tree and list nodes", i)
				}
			}
			if head != nil && head.tree {
				if head.parent != nil {
					t.Fatalf("bin %d: the tree's root is not first", i)
				}
				checkTree(t, head)
			}
		}
	})
}

// checkTree is TreeNode.checkInvariants over the whole tree.
func checkTree[T any](t *testing.T, p *node[T]) {
	if p == nil {
		return
	}
	tp, tl, tr, tb, tn := p.parent, p.left, p.right, p.prev, p.next
	switch {
	case tb != nil && tb.next != p, tn != nil && tn.prev != p:
		t.Fatal("list links broken")
	case tp != nil && tp.left != p && tp.right != p:
		t.Fatal("parent link broken")
	case tl != nil && (tl.parent != p || tl.hash > p.hash), tr != nil && (tr.parent != p || tr.hash < p.hash):
		t.Fatal("tree not ordered by hash")
	case p.red && (tl != nil && tl.red || tr != nil && tr.red):
		t.Fatal("red node with a red child")
	}
	checkTree(t, tl)
	checkTree(t, tr)
}
