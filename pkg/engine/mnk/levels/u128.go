package levels

import (
	"errors"
	"math/big"
	"math/bits"
	"strconv"
)

// U128 is an unsigned 128-bit count: the totals of a count pass 2^64 on
// boards of 20 cells or more (5x5 has up to 25! ~ 1.6e25 games). It
// marshals to JSON as a number with every digit.
type U128 struct{ Hi, Lo uint64 }

// Add returns a + b; it panics past 2^128, which no count reaches
// (25! < 2^84 bounds every figure times the 2^25 positions of a ply).
func (a U128) Add(b U128) U128 {
	lo, c := bits.Add64(a.Lo, b.Lo, 0)
	hi, c := bits.Add64(a.Hi, b.Hi, c)
	if c != 0 {
		panic("levels: U128 overflow")
	}
	return U128{hi, lo}
}

// Add64 returns a + x.
func (a U128) Add64(x uint64) U128 { return a.Add(U128{0, x}) }

// IsZero tells whether a is 0.
func (a U128) IsZero() bool { return a.Hi == 0 && a.Lo == 0 }

// Big returns a as a big.Int.
func (a U128) Big() *big.Int {
	n := new(big.Int).SetUint64(a.Hi)
	n.Lsh(n, 64)
	return n.Or(n, new(big.Int).SetUint64(a.Lo))
}

// String returns a in decimal.
func (a U128) String() string {
	if a.Hi == 0 {
		return strconv.FormatUint(a.Lo, 10)
	}
	return a.Big().String()
}

// Uint64 returns a and whether it fits 64 bits.
func (a U128) Uint64() (uint64, bool) { return a.Lo, a.Hi == 0 }

// ParseU128 reads a decimal number of up to 128 bits.
func ParseU128(s string) (U128, error) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() < 0 || n.BitLen() > 128 {
		return U128{}, errors.New("levels: not a 128-bit unsigned number: " + s)
	}
	lo := new(big.Int).And(n, new(big.Int).SetUint64(^uint64(0))).Uint64()
	return U128{new(big.Int).Rsh(n, 64).Uint64(), lo}, nil
}

// MarshalJSON writes a as a JSON number with every digit.
func (a U128) MarshalJSON() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalJSON reads a JSON number (or a string of digits).
func (a *U128) UnmarshalJSON(data []byte) error {
	s := string(data)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := ParseU128(s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}
