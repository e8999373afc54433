package web

import "net/http"

func (s *Server) jobsRoutes() {
	s.mux.HandleFunc("GET /jobs", func(w http.ResponseWriter, r *http.Request) {
		s.page(w, "jobs.html", map[string]any{"Title": "Jobs", "Nav": "jobs"})
	})
}
