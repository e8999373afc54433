package tasks

import "strconv"

// Thousands formats n with commas between groups of three digits, as the
// readable reports print counts: 255,168.
func Thousands(n uint64) string { return Digits(strconv.FormatUint(n, 10)) }

// Digits puts commas between groups of three digits of a decimal number
// of any size (a 128-bit count's String, say).
func Digits(s string) string {
	b := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// Count writes n things, in the plural unless n is 1: "1 task", "3 tasks".
func Count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
