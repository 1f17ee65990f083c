package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// CallerHeader names the calling application; it becomes the Sentinel
// origin that authority rules and limitApp read.
const CallerHeader = "X-Caller"

// newHandler routes the API through a protected ServeMux: every route's
// pattern is an inbound web resource ("/api/order"), checked before the
// handler runs, and the handlers call the generated wrappers, whose
// resources ("getOrder") nest under it in the call tree. Operational
// endpoints (extra) are registered unprotected: a dashboard must not be
// limited by the rules it shows.
func newHandler(svc *OrderService, extra map[string]http.Handler) http.Handler {
	mux := nethttp.NewServeMux(nethttp.WithOriginParser(nethttp.OriginFromHeader(CallerHeader)))
	mux.HandleFunc("GET /api/order", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(r.URL.Query().Get("id"), 10, 64)
		if err != nil {
			http.Error(w, "id must be a number", http.StatusBadRequest)
			return
		}
		o, err := svc.GetOrder(r.Context(), id)
		reply(w, o, err)
	})
	mux.HandleFunc("POST /api/orders", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			User   string  `json:"user"`
			Item   string  `json:"item"`
			Amount float64 `json:"amount"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.User == "" {
			http.Error(w, "want {user, item, amount}", http.StatusBadRequest)
			return
		}
		o, err := svc.CreateOrder(r.Context(), req.User, req.Item, req.Amount)
		reply(w, o, err)
	})
	mux.HandleFunc("POST /api/order/{id}/pay", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil {
			http.Error(w, "id must be a number", http.StatusBadRequest)
			return
		}
		o, err := svc.PayOrder(r.Context(), id)
		reply(w, o, err)
	})
	mux.HandleFunc("GET /api/orders", func(w http.ResponseWriter, r *http.Request) {
		user := r.URL.Query().Get("user")
		if user == "" {
			http.Error(w, "user is required", http.StatusBadRequest)
			return
		}
		os, err := svc.ListOrders(r.Context(), user)
		reply(w, os, err)
	})
	for pattern, h := range extra {
		mux.ServeMux.Handle(pattern, h)
	}
	return mux
}

// reply writes v as JSON, or maps err to a status.
func reply(w http.ResponseWriter, v any, err error) {
	switch {
	case err == nil:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	case errors.Is(err, ErrNotFound):
		http.Error(w, err.Error(), http.StatusNotFound)
	case errors.Is(err, ErrBusy), errors.Is(err, runtime.ErrBlocked):
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusTooManyRequests)
	default:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}
