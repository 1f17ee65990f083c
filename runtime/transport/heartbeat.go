package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// heartbeats registers the machine with dashboard d now and then every
// HeartbeatInterval, until Close. Each dashboard has its own loop, so one
// that is down or slow delays no other (Java's simple-http sender only
// ever uses the first address).
func (s *Server) heartbeats(d Endpoint) {
	defer s.wg.Done()
	down := false
	t := time.NewTicker(s.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		err := s.sendHeartbeat(d)
		if s.ctx.Err() != nil {
			return // closing: an interrupted heartbeat is no outage
		}
		switch {
		case err != nil && !down:
			down = true
			runtime.Logger().Warn("sentinel: dashboard heartbeat failed; retrying every interval, logged again when it succeeds",
				slog.String("dashboard", d.String()), slog.Any("error", err))
		case err == nil && down:
			down = false
			runtime.Logger().Info("sentinel: dashboard heartbeat succeeds again", slog.String("dashboard", d.String()))
		}
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// heartbeatForm is Java's HeartbeatMessage: what the dashboard's
// MachineRegistryController reads.
func (s *Server) heartbeatForm() url.Values {
	return url.Values{
		"app":      {s.cfg.App},
		"app_type": {strconv.Itoa(s.cfg.AppType)},
		"hostname": {s.cfg.Hostname},
		"ip":       {s.clientIP},
		"port":     {strconv.Itoa(s.port)},
		"v":        {Version},
		// Java sends its clock's milliseconds as the heartbeat's version.
		"version": {strconv.FormatInt(time.Now().UnixMilli(), 10)},
	}
}

// sendHeartbeat posts one heartbeat. The dashboard answers 200 with a
// Result even when it refuses the machine, so a Result with success false
// is a failure too, with the dashboard's message.
func (s *Server) sendHeartbeat(d Endpoint) error {
	// Whatever the client's own timeout, a heartbeat gives up when the
	// next one is due.
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.HeartbeatInterval)
	defer cancel()
	u := d.String() + s.cfg.HeartbeatPath
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(s.heartbeatForm().Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return fmt.Errorf("%s: HTTP %d to %q, not followed: heartbeats go to the configured dashboards only",
			u, resp.StatusCode, printable(resp.Header.Get("Location")))
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
	}
	var result struct {
		Success *bool  `json:"success"`
		Msg     string `json:"msg"`
	}
	if json.Unmarshal(body, &result) == nil && result.Success != nil && !*result.Success {
		return fmt.Errorf("%s refused the machine: %s", u, result.Msg)
	}
	return nil
}
