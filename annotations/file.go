package annotations

import (
	"go/ast"
	"go/token"
	"sort"
	"strings"
)

// ParseFile finds every directive in f and returns them in source order,
// each attached to what it annotates, with every problem found: bad keys
// and values, a second directive on one declaration, a directive that
// annotates nothing it applies to, and misspelt //sentinel: directives.
//
// A //sentinel:resource directive annotates a function or method. A
// //sentinel:decorate directive annotates a type declaration (the
// generator checks that the type is an interface); the //sentinel:resource
// directives on the methods of its interface type are its Methods, and are
// not returned on their own.
//
// It reads CommentGroup.List, not CommentGroup.Text, which drops directive
// lines.
func ParseFile(fset *token.FileSet, f *ast.File) ([]*Directive, ErrorList) {
	owner := docOwners(f)
	var (
		out     []*Directive
		methods = map[*Directive]*ast.TypeSpec{} // a method's directive -> its interface
		errs    ErrorList
		first   = map[any]*Directive{} // the declaration's directive
	)
	once := func(d *Directive, decl any, what string) bool {
		if prev := first[decl]; prev != nil {
			errs.Add(d.Pos, "second %s directive on %s; the first is at line %d", prev.Prefix(), what, prev.Pos.Line)
			return false
		}
		first[decl] = d
		return true
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			pos := fset.Position(c.Slash)
			if !IsDirective(c.Text) {
				checkMisspelt(pos, c.Text, &errs)
				continue
			}
			d, perrs := ParseLine(pos, c.Text)
			errs = append(errs, perrs...)
			if d.Decorate {
				if ts := decorated(d, owner[cg], &errs); ts != nil && once(d, ts, ts.Name.Name) {
					d.TypeDecl = ts
					out = append(out, d)
				}
				continue
			}
			switch decl := owner[cg].(type) {
			case *ast.FuncDecl:
				if once(d, decl, decl.Name.Name) {
					d.Func = decl
					out = append(out, d)
				}
			case ifaceMethod:
				if len(decl.field.Names) == 0 {
					errs.Add(pos, "%s annotates a method of %s, not an embedded interface", Prefix, decl.spec.Name.Name)
					continue
				}
				if once(d, decl.field, decl.spec.Name.Name+"."+decl.field.Names[0].Name) {
					d.Method = decl.field
					methods[d] = decl.spec
				}
			case *ast.GenDecl:
				hint := ""
				if decl.Tok == token.TYPE {
					hint = "; to protect an implementation of an interface type, write " + DecoratePrefix
				}
				errs.Add(pos, "%s annotates a function or method, not a %s declaration%s", Prefix, decl.Tok, hint)
			case *ast.TypeSpec:
				errs.Add(pos, "%s annotates a function or method, not a type declaration; to protect an implementation of an interface type, write %s", Prefix, DecoratePrefix)
			default:
				errs.Add(pos, "%s annotates a function or method; this comment is not the doc comment of one", Prefix)
			}
		}
	}
	attachMethods(out, methods, &errs)
	return out, errs
}

// ifaceMethod is a method (or embedded type) of an interface type
// declared by spec.
type ifaceMethod struct {
	spec  *ast.TypeSpec
	field *ast.Field
}

// docOwners maps each doc comment of f to what it documents: a
// *ast.FuncDecl, a *ast.GenDecl, a *ast.TypeSpec of a group, or an
// ifaceMethod.
func docOwners(f *ast.File) map[*ast.CommentGroup]any {
	owner := map[*ast.CommentGroup]any{}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				owner[d.Doc] = d
			}
		case *ast.GenDecl:
			if d.Doc != nil {
				owner[d.Doc] = d
			}
			for _, spec := range d.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				if ts.Doc != nil {
					owner[ts.Doc] = ts
				}
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					for _, field := range it.Methods.List {
						if field.Doc != nil {
							owner[field.Doc] = ifaceMethod{ts, field}
						}
					}
				}
			}
		}
	}
	return owner
}

// decorated is the type declaration a //sentinel:decorate directive
// annotates, or nil after reporting why there is none.
func decorated(d *Directive, decl any, errs *ErrorList) *ast.TypeSpec {
	switch decl := decl.(type) {
	case *ast.TypeSpec:
		return decl
	case *ast.GenDecl:
		switch {
		case decl.Tok != token.TYPE:
			errs.Add(d.Pos, "%s annotates an interface type, not a %s declaration", DecoratePrefix, decl.Tok)
		case len(decl.Specs) != 1:
			errs.Add(d.Pos, "%s annotates one interface type: move it into the doc comment of one type of the group", DecoratePrefix)
		default:
			return decl.Specs[0].(*ast.TypeSpec)
		}
	case *ast.FuncDecl:
		errs.Add(d.Pos, "%s annotates an interface type, not a function; to protect %s, write %s", DecoratePrefix, decl.Name.Name, Prefix)
	case ifaceMethod:
		errs.Add(d.Pos, "%s annotates an interface type, not one of its methods: move it above type %s, or write %s to set this method's keys", DecoratePrefix, decl.spec.Name.Name, Prefix)
	default:
		errs.Add(d.Pos, "%s annotates an interface type; this comment is not the doc comment of a type declaration", DecoratePrefix)
	}
	d.Bad = true
	return nil
}

// attachMethods gives each //sentinel:decorate directive the
// //sentinel:resource directives on its interface's methods, and refuses
// those of an interface without one, and the keys that a method cannot
// set.
func attachMethods(decorates []*Directive, methods map[*Directive]*ast.TypeSpec, errs *ErrorList) {
	byType := map[*ast.TypeSpec]*Directive{}
	for _, d := range decorates {
		if d.TypeDecl != nil {
			byType[d.TypeDecl] = d
		}
	}
	// In source order, so that a decoration's Methods are.
	ms := make([]*Directive, 0, len(methods))
	for m := range methods {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Pos.Offset < ms[j].Pos.Offset })
	for _, m := range ms {
		spec := methods[m]
		deco := byType[spec]
		if deco == nil {
			errs.Add(m.Pos, "%s on a method of %s sets that method's keys for %s: add %s above type %s",
				Prefix, spec.Name.Name, DecoratePrefix, DecoratePrefix, spec.Name.Name)
			continue
		}
		for _, key := range []string{"wrapper", "defaultFallback"} {
			if at, ok := m.Given[key]; ok {
				errs.Add(at, "%s= does not apply to a method of a decorated interface: %s", key, notOnMethod[key])
				m.Bad = true
			}
		}
		if m.Bad {
			deco.Bad = true // generating without the method's keys would protect it otherwise than asked
			continue
		}
		deco.Methods = append(deco.Methods, m)
	}
}

var notOnMethod = map[string]string{
	"wrapper":         "the method keeps its name; wrapper= on " + DecoratePrefix + " names the constructor",
	"defaultFallback": "name a fallback (a variable of the interface's type, or a func(error) returning one)",
}

// checkMisspelt reports //sentinel:xxx lines that are not a known
// directive, so that a typo never silently leaves a method unprotected.
func checkMisspelt(pos token.Position, text string, errs *ErrorList) {
	for _, prefix := range []string{Prefix, DecoratePrefix} {
		if strings.HasPrefix(text, "// "+prefix[2:]) {
			errs.Add(pos, "a directive has no space after //: write %s", prefix)
			return
		}
	}
	rest, ok := strings.CutPrefix(text, "//sentinel:")
	if !ok || rest == "" {
		return
	}
	verb, _, _ := strings.Cut(strings.ReplaceAll(rest, "\t", " "), " ")
	if verb == "" {
		return
	}
	hint := ""
	if s := nearest(verb, []string{"resource", "decorate"}); s != "" {
		hint = "; did you mean //sentinel:" + s + "?"
	}
	errs.Add(pos, "unknown directive //sentinel:%s%s", verb, hint)
}
