package web

import "net/http"

// nineGame is one nine-board tic-tac-toe game against the engine.
type nineGame struct{}

func (s *Server) nineboardRoutes() {
	s.mux.HandleFunc("GET /nineboard", func(w http.ResponseWriter, r *http.Request) {
		s.page(w, "nineboard.html", map[string]any{"Title": "Nine-board", "Nav": "nineboard"})
	})
}
