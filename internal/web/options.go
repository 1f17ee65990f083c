package web

// Options is the option set of the adapters whose requests are a
// framework's own type R rather than an *http.Request (fiber, Hertz), so
// that they cannot take runtime/nethttp's options: the engine's Config
// and the adapter's block handler, of the framework's type B. Each
// adapter declares its Option as a func(*Options[R, B]) of its own and
// each of its With functions, documented for its framework, returns one
// of these.
type Options[R, B any] struct {
	Config[R]
	BlockHandler B // the zero B: the adapter's default answer
}

// Option sets one of Options.
type Option[R, B any] func(*Options[R, B])

// URLCleaner sets Config.Cleaner.
func URLCleaner[R, B any](clean func(r R, resource string) string) Option[R, B] {
	return func(o *Options[R, B]) { o.Cleaner = clean }
}

// Args sets Config.Args.
func Args[R, B any](fn func(r R) []any) Option[R, B] {
	return func(o *Options[R, B]) { o.Args = fn }
}

// ErrorStatus sets Config.ErrorStatus.
func ErrorStatus[R, B any](isError func(code int) bool) Option[R, B] {
	return func(o *Options[R, B]) { o.ErrorStatus = isError }
}

// MethodPrefix sets Config.MethodPrefix.
func MethodPrefix[R, B any]() Option[R, B] {
	return func(o *Options[R, B]) { o.MethodPrefix = true }
}

// WebContextUnify sets Config.SeparateContexts to !unify.
func WebContextUnify[R, B any](unify bool) Option[R, B] {
	return func(o *Options[R, B]) { o.SeparateContexts = !unify }
}

// UnmatchedPath sets Config.UnmatchedPath.
func UnmatchedPath[R, B any]() Option[R, B] {
	return func(o *Options[R, B]) { o.UnmatchedPath = true }
}

// OriginParser sets Config.Origin.
func OriginParser[R, B any](parse func(r R) string) Option[R, B] {
	return func(o *Options[R, B]) { o.Origin = parse }
}

// BlockHandler sets Options.BlockHandler.
func BlockHandler[R, B any](h B) Option[R, B] {
	return func(o *Options[R, B]) { o.BlockHandler = h }
}

// Apply returns the Options that opts make of the defaults: the engine's
// zero Config with errorStatus as its ErrorStatus, and no block handler.
func Apply[R, B any, O ~func(*Options[R, B])](errorStatus func(code int) bool, opts []O) Options[R, B] {
	o := Options[R, B]{Config: Config[R]{ErrorStatus: errorStatus}}
	for _, apply := range opts {
		apply(&o)
	}
	return o
}
