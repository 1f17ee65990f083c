package javahash

// Tree bins: HashMap.TreeNode's insertion, step for step, since the tree's
// shape decides the bin's order (its root is moved to the front, and a new
// element is linked after its parent). Nodes are ordered by spread hash,
// signed; equal hashes by tieBreak.

// tieBreak stands for HashMap.tieBreakOrder, which compares identity
// hashes: the element being placed goes left (Java's -1).
const tieBreak = -1

func compareHash(h, ph int32) int {
	switch {
	case ph > h:
		return -1
	case ph < h:
		return 1
	}
	return tieBreak
}

// treeify is TreeNode.treeify: the bin's nodes, in list order, inserted
// into a red-black tree whose root then heads the bin.
func (s *Set[T]) treeify(head *node[T]) {
	var root *node[T]
	for x := head; x != nil; x = x.next {
		x.left, x.right = nil, nil
		if root == nil {
			x.parent, x.red = nil, false
			root = x
			continue
		}
		for p := root; ; {
			dir := compareHash(x.hash, p.hash)
			xp := p
			if dir <= 0 {
				p = p.left
			} else {
				p = p.right
			}
			if p == nil {
				x.parent = xp
				if dir <= 0 {
					xp.left = x
				} else {
					xp.right = x
				}
				root = balanceInsertion(root, x)
				break
			}
		}
	}
	s.moveRootToFront(root)
}

// putTree is TreeNode.putTreeVal for an element not present: a leaf of
// the tree, linked after its parent in the bin's list.
func (s *Set[T]) putTree(head *node[T], h int32, e T) {
	root := head
	for root.parent != nil {
		root = root.parent
	}
	for p := root; ; {
		dir := compareHash(h, p.hash)
		xp := p
		if dir <= 0 {
			p = p.left
		} else {
			p = p.right
		}
		if p != nil {
			continue
		}
		xpn := xp.next
		x := s.newNode(h, e)
		x.next, x.tree = xpn, true
		if dir <= 0 {
			xp.left = x
		} else {
			xp.right = x
		}
		xp.next = x
		x.parent, x.prev = xp, xp
		if xpn != nil {
			xpn.prev = x
		}
		s.moveRootToFront(balanceInsertion(root, x))
		return
	}
}

// moveRootToFront is TreeNode.moveRootToFront: the root becomes the first
// node of its bin, the others keeping their order.
func (s *Set[T]) moveRootToFront(root *node[T]) {
	i := s.index(root.hash)
	first := s.table[i]
	if root == first {
		return
	}
	s.table[i] = root
	rp, rn := root.prev, root.next
	if rn != nil {
		rn.prev = rp
	}
	if rp != nil {
		rp.next = rn
	}
	if first != nil {
		first.prev = root
	}
	root.next, root.prev = first, nil
}

// split is TreeNode.split, in a resize: the bin's nodes into the bin at the
// same index and the one bit further, in order; a half of 6 or fewer
// becomes a plain list, a larger one a tree again (left as it was when the
// other half is empty).
func (s *Set[T]) split(b *node[T], index, bit int) {
	var lo, hi chain[T]
	for e := b; e != nil; {
		next := e.next
		if uint32(e.hash)&uint32(bit) == 0 {
			lo.push(e)
		} else {
			hi.push(e)
		}
		e = next
	}
	if lo.head != nil {
		s.table[index] = lo.head
		if lo.n <= untreeifyMax {
			untreeify(lo.head)
		} else if hi.head != nil {
			s.treeify(lo.head)
		}
	}
	if hi.head != nil {
		s.table[index+bit] = hi.head
		if hi.n <= untreeifyMax {
			untreeify(hi.head)
		} else if lo.head != nil {
			s.treeify(hi.head)
		}
	}
}

// untreeify is TreeNode.untreeify: the same list, as plain nodes.
func untreeify[T any](head *node[T]) {
	for p := head; p != nil; p = p.next {
		p.tree = false
		p.parent, p.left, p.right, p.prev, p.red = nil, nil, nil, nil, false
	}
}

// rotateLeft, rotateRight and balanceInsertion are TreeNode's, "adapted
// from CLR"; they return the tree's root.
func rotateLeft[T any](root, p *node[T]) *node[T] {
	if p == nil || p.right == nil {
		return root
	}
	r := p.right
	p.right = r.left
	if rl := p.right; rl != nil {
		rl.parent = p
	}
	r.parent = p.parent
	switch pp := r.parent; {
	case pp == nil:
		root = r
		root.red = false
	case pp.left == p:
		pp.left = r
	default:
		pp.right = r
	}
	r.left = p
	p.parent = r
	return root
}

func rotateRight[T any](root, p *node[T]) *node[T] {
	if p == nil || p.left == nil {
		return root
	}
	l := p.left
	p.left = l.right
	if lr := p.left; lr != nil {
		lr.parent = p
	}
	l.parent = p.parent
	switch pp := l.parent; {
	case pp == nil:
		root = l
		root.red = false
	case pp.right == p:
		pp.right = l
	default:
		pp.left = l
	}
	l.right = p
	p.parent = l
	return root
}

func balanceInsertion[T any](root, x *node[T]) *node[T] {
	x.red = true
	for {
		xp := x.parent
		if xp == nil {
			x.red = false
			return x
		}
		xpp := xp.parent
		if !xp.red || xpp == nil {
			return root
		}
		if xppl := xpp.left; xp == xppl {
			if xppr := xpp.right; xppr != nil && xppr.red {
				xppr.red, xp.red, xpp.red = false, false, true
				x = xpp
				continue
			}
			if x == xp.right {
				x = xp
				root = rotateLeft(root, x)
				xp = x.parent
				xpp = nil
				if xp != nil {
					xpp = xp.parent
				}
			}
			if xp != nil {
				xp.red = false
				if xpp != nil {
					xpp.red = true
					root = rotateRight(root, xpp)
				}
			}
		} else {
			if xppl != nil && xppl.red {
				xppl.red, xp.red, xpp.red = false, false, true
				x = xpp
				continue
			}
			if x == xp.left {
				x = xp
				root = rotateRight(root, x)
				xp = x.parent
				xpp = nil
				if xp != nil {
					xpp = xp.parent
				}
			}
			if xp != nil {
				xp.red = false
				if xpp != nil {
					xpp.red = true
					root = rotateLeft(root, xpp)
				}
			}
		}
	}
}
