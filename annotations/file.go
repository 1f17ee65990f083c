package annotations

import (
	"go/ast"
	"go/token"
	"strings"
)

// ParseFile finds every directive in f and returns them in source order,
// each attached to the function it annotates, with every problem found:
// bad keys and values, a second directive on one function, a directive
// that annotates no function, and misspelt //sentinel: directives.
//
// It reads CommentGroup.List, not CommentGroup.Text, which drops directive
// lines.
func ParseFile(fset *token.FileSet, f *ast.File) ([]*Directive, ErrorList) {
	owner := map[*ast.CommentGroup]ast.Decl{}
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
		}
	}
	var (
		out  []*Directive
		errs ErrorList
		byFn = map[*ast.FuncDecl]*Directive{}
	)
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			pos := fset.Position(c.Slash)
			if !IsDirective(c.Text) {
				checkMisspelt(pos, c.Text, &errs)
				continue
			}
			d, perrs := ParseLine(pos, c.Text)
			errs = append(errs, perrs...)
			switch decl := owner[cg].(type) {
			case *ast.FuncDecl:
				if first := byFn[decl]; first != nil {
					errs.Add(pos, "second %s directive on %s; the first is at line %d", Prefix, decl.Name.Name, first.Pos.Line)
					continue
				}
				d.Func = decl
				byFn[decl] = d
				out = append(out, d)
			case *ast.GenDecl:
				errs.Add(pos, "%s annotates a function or method, not a %s declaration", Prefix, decl.Tok)
			default:
				errs.Add(pos, "%s annotates a function or method; this comment is not the doc comment of one", Prefix)
			}
		}
	}
	return out, errs
}

// checkMisspelt reports //sentinel:xxx lines that are not a known
// directive, so that a typo never silently leaves a method unprotected.
func checkMisspelt(pos token.Position, text string, errs *ErrorList) {
	if strings.HasPrefix(text, "// "+Prefix[2:]) {
		errs.Add(pos, "a directive has no space after //: write %s", Prefix)
		return
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
	if nearest(verb, []string{"resource"}) != "" {
		hint = "; did you mean " + Prefix + "?"
	}
	errs.Add(pos, "unknown directive //sentinel:%s%s", verb, hint)
}
