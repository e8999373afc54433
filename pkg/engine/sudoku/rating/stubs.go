package rating

func (s *Solver) strongLinks(n int) bool {
	if n == 2 {
		return s.turbot()
	}
	return false
}
func (s *Solver) uniqueLoops() bool  { return s.uniqueRectangle() }
func (s *Solver) alsWing(k int) bool { return false }
func (s *Solver) alignedPair() bool  { return false }
