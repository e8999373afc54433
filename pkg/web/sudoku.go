package web

import "net/http"

// sudokuGame is one Sudoku being solved by a person.
type sudokuGame struct{}

func (s *Server) sudokuRoutes() {
	s.mux.HandleFunc("GET /sudoku", func(w http.ResponseWriter, r *http.Request) {
		s.page(w, "sudoku.html", map[string]any{"Title": "Sudoku", "Nav": "sudoku"})
	})
}
