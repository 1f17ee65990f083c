package nethttp_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

func ExampleMiddleware() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /example/order/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "order", r.PathValue("id"))
	})
	handler := nethttp.Middleware()(mux) // http.ListenAndServe(addr, handler)

	_ = flow.LoadRules([]flow.Rule{{Resource: "/example/order/{id}", Grade: flow.GradeQPS, Count: 1}})
	defer flow.LoadRules(nil)

	for _, id := range []string{"1", "2"} {
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, httptest.NewRequest("GET", "/example/order/"+id, nil))
		fmt.Printf("%d Retry-After=%q\n", w.Code, w.Header().Get("Retry-After"))
	}
	// Output:
	// 200 Retry-After=""
	// 429 Retry-After="1"
}

func ExampleHandle() {
	mux := http.NewServeMux()
	// Only this route is protected, as "POST:/example/pay", and its blocked
	// requests get a JSON answer.
	nethttp.HandleFunc(mux, "POST /example/pay", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "paid")
	},
		nethttp.WithMethodPrefix(),
		nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user")),
		nethttp.WithBlockHandler(func(w http.ResponseWriter, _ *http.Request, b *runtime.BlockError) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprintf(w, `{"blockedBy":%q}`+"\n", b.BlockType())
		}))
	mux.HandleFunc("GET /example/health", func(http.ResponseWriter, *http.Request) {}) // not protected
}

func ExampleTransport() {
	client := &http.Client{Transport: nethttp.Transport(nil,
		// One resource for every order ID: "GET:http://orders.internal/orders/{id}".
		nethttp.WithURLCleaner(func(_ *http.Request, url string) string {
			if prefix, id, ok := strings.Cut(url, "/orders/"); ok && id != "" {
				return prefix + "/orders/{id}"
			}
			return url
		}),
	)}
	resp, err := client.Get("http://orders.internal/orders/42")
	if errors.Is(err, runtime.ErrBlocked) {
		fmt.Println("refused by a rule") // or answer with nethttp.WithFallback
		return
	}
	if err == nil {
		defer resp.Body.Close() // exits the entry, if not read to the end before
	}
}

// addr and getOrder stand for a service's own address and handler.
var addr = "127.0.0.1:8080"

func getOrder(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintln(w, "order", r.URL.Query().Get("id"))
}

// A ServeMux whose handlers are protected, and a client whose calls are.
func ExampleNewServeMux() {
	mux := nethttp.NewServeMux()               // an http.ServeMux whose handlers are protected
	mux.HandleFunc("GET /api/order", getOrder) // resource "/api/order", inbound
	http.ListenAndServe(addr, mux)

	client := &http.Client{Transport: nethttp.Transport(http.DefaultTransport)} // "GET:http://host/path", outbound
	_ = client
}

// A fallback answers the requests a rule refuses, instead of an error:
// here the inventory service's answer for "stock unknown", which the
// caller already handles.
func ExampleWithFallback() {
	client := &http.Client{Transport: nethttp.Transport(nil,
		nethttp.WithFallback(func(r *http.Request, b *runtime.BlockError) (*http.Response, error) {
			return &http.Response{
				StatusCode: http.StatusOK,
				Header:     http.Header{"Content-Type": {"application/json"}},
				Body:       io.NopCloser(strings.NewReader(`{"sku":42,"stock":null}`)), // unknown: refused by a rule
				Request:    r,
			}, nil
		}),
	)}
	resp, err := client.Get("http://inventory.internal/v1/stock?sku=42") // resource "GET:http://inventory.internal/v1/stock"
	if err != nil {
		return // the network's errors; never a refusal
	}
	defer resp.Body.Close() // exits the entry: a thread-count rule counts the call until then
}
