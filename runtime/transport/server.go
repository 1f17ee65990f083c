package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sentinelgen/sentinelgen/internal/hostguard"
	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// Server is a running command center: it answers the dashboard's commands
// on Addr, sends heartbeats and, when configured, writes the metric log.
type Server struct {
	cfg        Config
	ln         net.Listener
	http       *http.Server
	dashboards []Endpoint
	clientIP   string
	port       int
	started    int64 // Unix ms, the cluster state's lastModified
	commands   map[string]command
	sem        chan struct{} // commands running
	bodies     chan struct{} // POST bodies being read, before their command runs
	hosts      hostguard.List
	metricLog  *metricLog

	// rulesMu serialises setRules, so that the file written back holds
	// the last rules loaded.
	rulesMu sync.Mutex

	// ctx is cancelled by Close: it ends the loops and any heartbeat in
	// flight.
	ctx       context.Context
	cancel    context.CancelFunc
	closeMu   sync.Mutex  // guards stopWatch
	stopWatch func() bool // stops the watch of Start's ctx
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Start listens on cfg.Addr and serves the dashboard's commands until
// Close is called or ctx is done; it sends the first heartbeat at once and
// then every HeartbeatInterval. It returns an error when the Config is
// incomplete or Addr cannot be listened on, never because a dashboard is
// unreachable: heartbeats are retried at every interval, and an outage is
// logged once, when it starts, and once when it ends.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	dashboards, err := parseDashboards(cfg.Dashboard)
	if err != nil {
		runtime.Logger().Warn("sentinel: "+err.Error(), slog.String("dashboard", cfg.Dashboard))
	}
	if cfg.Dashboard != "" && len(dashboards) == 0 {
		return nil, fmt.Errorf("transport: no usable dashboard address in %q", cfg.Dashboard)
	}
	var ml *metricLog
	if cfg.MetricLog != nil {
		if ml, err = openMetricLog(cfg.App, *cfg.MetricLog); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("transport: command center: %w", err)
	}
	s := &Server{
		cfg:        cfg,
		ln:         ln,
		dashboards: dashboards,
		port:       ln.Addr().(*net.TCPAddr).Port,
		started:    runtime.NowMillis(),
		sem:        make(chan struct{}, cfg.MaxConcurrent),
		bodies:     make(chan struct{}, cfg.MaxConcurrent),
		metricLog:  ml,
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.clientIP = cfg.ClientIP
	if s.clientIP == "" {
		s.clientIP = advertisedIP(ln.Addr().(*net.TCPAddr).IP)
	}
	if host, _, err := net.SplitHostPort(cfg.Addr); err == nil {
		s.hosts.Add(host)
	}
	s.hosts.Add(s.clientIP)
	s.hosts.Add(cfg.AllowedHosts...)
	s.commands = s.commandTable()
	s.http = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 3 * time.Second, // Java's socket timeout
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(runtime.Logger().Handler(), slog.LevelDebug),
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			runtime.Logger().Error("sentinel: command center stopped", slog.Any("error", err))
		}
	}()
	for _, d := range dashboards {
		s.wg.Add(1)
		go s.heartbeats(d)
	}
	if ml != nil {
		s.wg.Add(1)
		go s.writeMetricLog()
	}
	// Close may run on AfterFunc's goroutine before AfterFunc returns (ctx
	// ended meanwhile): it must find stopWatch set, so set it under closeMu.
	s.closeMu.Lock()
	s.stopWatch = context.AfterFunc(ctx, func() { _ = s.Close() })
	s.closeMu.Unlock()
	runtime.Logger().Info("sentinel: command center listening",
		slog.String("addr", ln.Addr().String()), slog.String("app", cfg.App),
		slog.String("dashboard", cfg.Dashboard), slog.String("ip", s.clientIP))
	return s, nil
}

// Addr is the address the command center listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops serving, sending heartbeats and writing the metric log, and
// waits for them. It is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.closeMu.Lock()
		if s.stopWatch != nil {
			s.stopWatch()
		}
		s.closeMu.Unlock()
		s.cancel()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := s.http.Shutdown(ctx)
		if err != nil {
			err = errors.Join(err, s.http.Close())
		}
		s.wg.Wait()
		if s.metricLog != nil {
			err = errors.Join(err, s.metricLog.Close())
		}
		s.closeErr = err
	})
	return s.closeErr
}

// advertisedIP is the address the dashboard is told to call: the listen
// address, or the machine's first non-loopback address when that is
// unspecified (Java's HostNameUtil.getIp).
func advertisedIP(ip net.IP) string {
	if ip != nil && !ip.IsUnspecified() {
		return ip.String()
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return "127.0.0.1"
}

// maxParams bounds the parameters of one request; commands take at most
// five.
const maxParams = 64

// requestError is a failure before the command runs, with its status.
type requestError struct {
	code int
	msg  string
}

func (e *requestError) Error() string { return e.msg }

// ServeHTTP answers one command, as Java's HttpEventTask: the path names
// the command, parameters come from the query string and, for POST, a
// form-encoded body (which wins over the query). A command's success is
// 200 with its result as the body; its failure is 400 with the reason, an
// unknown command 400 "Unknown command `name`".
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			runtime.Logger().Error("sentinel: command failed", slog.String("path", safetext.Name(r.URL.Path)), slog.Any("panic", v))
			reply(w, http.StatusInternalServerError, "Command server error")
		}
	}()
	if fromWebPage(r) {
		reply(w, http.StatusForbidden, "Commands from web pages are refused")
		return
	}
	if !s.hosts.Allowed(r) {
		reply(w, http.StatusForbidden, "Host not allowed (transport.Config.AllowedHosts adds the names this command center is reached by)")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		reply(w, http.StatusMethodNotAllowed, "Only GET and POST are supported")
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	p, err := s.params(w, r)
	if err != nil {
		var re *requestError
		if errors.As(err, &re) {
			reply(w, re.code, re.msg)
		} else {
			reply(w, http.StatusBadRequest, err.Error())
		}
		return
	}
	if strings.TrimSpace(name) == "" {
		reply(w, http.StatusBadRequest, "Invalid command")
		return
	}
	cmd, ok := s.commands[name]
	if !ok {
		reply(w, http.StatusBadRequest, "Unknown command `"+printable(name)+"`")
		return
	}
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	default:
		reply(w, http.StatusServiceUnavailable, "Command server busy")
		return
	}
	body, err := cmd.run(p)
	if err != nil {
		reply(w, http.StatusBadRequest, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if cmd.json {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, body)
}

func reply(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(msg)))
	w.WriteHeader(code)
	_, _ = io.WriteString(w, msg)
}

// params reads the query string and a POST's form body. The body is read
// under a slot of its own (s.bodies), not a command's, so that bodies
// trickled in by slow or hostile clients hold no command up; the server's
// ReadTimeout bounds the time one takes.
func (s *Server) params(w http.ResponseWriter, r *http.Request) (params, error) {
	p := params{}
	if err := parseParams(r.URL.RawQuery, p); err != nil {
		return nil, err
	}
	if r.Method != http.MethodPost {
		return p, nil
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/x-www-form-urlencoded" {
			return nil, &requestError{http.StatusUnsupportedMediaType, "Only form-encoded post request is supported"}
		}
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		return nil, &requestError{http.StatusRequestEntityTooLarge,
			fmt.Sprintf("request body over %d bytes", s.cfg.MaxBodyBytes)}
	}
	select {
	case s.bodies <- struct{}{}:
		defer func() { <-s.bodies }()
	default:
		return nil, &requestError{http.StatusServiceUnavailable, "Command server busy"}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &requestError{http.StatusRequestEntityTooLarge,
				fmt.Sprintf("request body over %d bytes", s.cfg.MaxBodyBytes)}
		}
		return nil, &requestError{http.StatusBadRequest, "reading request body: " + err.Error()}
	}
	if err := parseParams(string(body), p); err != nil {
		return nil, err
	}
	return p, nil
}

// params are a command's parameters; a later value of a name wins, as in
// Java's CommandRequest.
type params map[string]string

// parseParams adds the parameters of a query string or form body as
// Java's HttpEventTask.parseParams reads them: text after '#' is dropped,
// a pair without a name or a value is skipped, names and values are
// trimmed, then URL-decoded ('+' is a space). A bad escape or a value that
// is not UTF-8 is an error.
func parseParams(q string, p params) error {
	if i := strings.IndexByte(q, '#'); i >= 0 {
		q = q[:i]
	}
	for pair := range strings.SplitSeq(q, "&") {
		if len(pair) < 3 {
			continue
		}
		i := strings.IndexByte(pair, '=')
		if i <= 0 || i >= len(pair)-1 {
			continue
		}
		k, err := decodeParam(strings.TrimSpace(pair[:i]))
		if err != nil {
			return err
		}
		v, err := decodeParam(strings.TrimSpace(pair[i+1:]))
		if err != nil {
			return fmt.Errorf("parameter %q: %w", printable(k), err)
		}
		if _, seen := p[k]; !seen && len(p) >= maxParams {
			return fmt.Errorf("more than %d parameters", maxParams)
		}
		p[k] = v
	}
	return nil
}

func decodeParam(s string) (string, error) {
	v, err := url.QueryUnescape(s)
	if err != nil {
		return "", fmt.Errorf("malformed URL encoding: %w", err)
	}
	if !utf8.ValidString(v) {
		return "", errors.New("not valid UTF-8")
	}
	return v, nil
}

// printable quotes s for a message when it holds anything but printable
// text, and cuts it to 200 bytes.
func printable(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || r == 0x7f {
			return strconv.Quote(s)
		}
	}
	return s
}

// fromWebPage reports whether a browser sent r on behalf of a web page:
// an <img src="http://127.0.0.1:8719/setSwitch?value=false"> on any page
// the operator visits would otherwise reach a command center on loopback,
// and a DNS-rebound page could read it. Browsers mark every request with
// Sec-Fetch-Site ("none" when the operator typed the URL) and cross-origin
// ones with Origin; the dashboard's HTTP client sends neither.
func fromWebPage(r *http.Request) bool {
	if r.Header.Get("Origin") != "" {
		return true
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "none":
		return false
	}
	return true
}
