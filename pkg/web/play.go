package web

import "net/http"

// mnkGame is one m,n,k game against the engine.
type mnkGame struct{}

func (s *Server) playRoutes() {
	s.mux.HandleFunc("GET /play", func(w http.ResponseWriter, r *http.Request) {
		s.page(w, "play.html", map[string]any{"Title": "Play", "Nav": "play"})
	})
}
