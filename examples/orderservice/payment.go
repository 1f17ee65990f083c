package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// PaymentClient charges orders at the payment provider over HTTP. Its
// transport is the runtime's outbound adapter, so every charge is also the
// outbound resource "POST:http://host/charge".
type PaymentClient struct {
	baseURL string
	http    *http.Client
}

// NewPaymentClient returns a client for the provider at baseURL whose
// requests go through transport.
func NewPaymentClient(baseURL string, transport http.RoundTripper) *PaymentClient {
	return &PaymentClient{
		baseURL: strings.TrimSuffix(baseURL, "/"),
		http:    &http.Client{Transport: transport, Timeout: 2 * time.Second},
	}
}

// Charge asks the provider to charge amount for order id.
func (c *PaymentClient) Charge(ctx context.Context, id int64, amount float64) error {
	body := strings.NewReader(fmt.Sprintf(`{"order":%d,"amount":%g}`, id, amount))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/charge", body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("charge order %d: %w", id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("charge order %d: provider answered %s", id, resp.Status)
	}
	var out struct{ OK bool }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || !out.OK {
		return fmt.Errorf("charge order %d: bad answer from provider", id)
	}
	return nil
}

// FlakyProvider is a stand-in payment provider whose health can be
// switched, so the demo and the tests can make the downstream fail.
type FlakyProvider struct {
	failing atomic.Bool
	charges atomic.Int64
	srv     *http.Server
	ln      net.Listener
}

// StartFlakyProvider serves a provider on a free loopback port.
func StartFlakyProvider() (*FlakyProvider, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &FlakyProvider{ln: ln}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /charge", func(w http.ResponseWriter, r *http.Request) {
		p.charges.Add(1)
		if p.failing.Load() {
			http.Error(w, "provider unavailable", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// URL is where the provider listens.
func (p *FlakyProvider) URL() string { return "http://" + p.ln.Addr().String() }

// SetFailing switches the provider between failing and healthy.
func (p *FlakyProvider) SetFailing(f bool) { p.failing.Store(f) }

// Charges is how many charge requests reached the provider.
func (p *FlakyProvider) Charges() int64 { return p.charges.Load() }

// Close stops the provider.
func (p *FlakyProvider) Close() error { return p.srv.Close() }
