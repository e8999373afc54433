package rating

func (s *Solver) strongLinks(n int) bool {
	if n == 2 {
		return s.turbot()
	}
	return false
}
