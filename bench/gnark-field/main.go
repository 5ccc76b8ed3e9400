// gnark-crypto's base-field product (BN254, BLS12-381; Go with its amd64 assembly), timed as bench/field-fma.bench.js
// times ours: one dependent chain x = x y (latency) and four chains (throughput), 20000 products per timed loop, the
// median of 200 loops, ns per product. The native figure beside the wide-arithmetic product (bench/README.md).
//
//	cd bench/gnark-field && go build -o /tmp/gnark-field . && flock /tmp/wasmsm-bench.lock /tmp/gnark-field
package main

import (
	"fmt"
	"sort"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	bn "github.com/consensys/gnark-crypto/ecc/bn254/fp"
)

const steps = 20000

func median(xs []float64) float64 { sort.Float64s(xs); return xs[len(xs)/2] }

func main() {
	// The two branches are the same loop over two Element types: written out, not behind a closure or an interface,
	// so that each timed product is gnark's inlined Mul and not a call.
	for _, name := range []string{"bn254", "bls12-381"} {
		var lat, thr []float64
		for r := 0; r < 200; r++ {
			if name == "bn254" {
				var x, y bn.Element
				x.SetUint64(3)
				y.SetString("12345678901234567890123456789")
				t := time.Now()
				for i := 0; i < steps; i++ {
					x.Mul(&x, &y)
				}
				lat = append(lat, float64(time.Since(t).Nanoseconds())/steps)
				var a [4]bn.Element
				for l := range a {
					a[l].SetUint64(uint64(l + 2))
				}
				t = time.Now()
				for i := 0; i < steps; i++ {
					a[0].Mul(&a[0], &y)
					a[1].Mul(&a[1], &y)
					a[2].Mul(&a[2], &y)
					a[3].Mul(&a[3], &y)
				}
				thr = append(thr, float64(time.Since(t).Nanoseconds())/(4*steps))
				if x.IsZero() || a[0].IsZero() {
					panic("zero")
				}
			} else {
				var x, y bls.Element
				x.SetUint64(3)
				y.SetString("12345678901234567890123456789")
				t := time.Now()
				for i := 0; i < steps; i++ {
					x.Mul(&x, &y)
				}
				lat = append(lat, float64(time.Since(t).Nanoseconds())/steps)
				var a [4]bls.Element
				for l := range a {
					a[l].SetUint64(uint64(l + 2))
				}
				t = time.Now()
				for i := 0; i < steps; i++ {
					a[0].Mul(&a[0], &y)
					a[1].Mul(&a[1], &y)
					a[2].Mul(&a[2], &y)
					a[3].Mul(&a[3], &y)
				}
				thr = append(thr, float64(time.Since(t).Nanoseconds())/(4*steps))
				if x.IsZero() || a[0].IsZero() {
					panic("zero")
				}
			}
		}
		fmt.Printf("gnark-crypto v0.22 %s fp.Mul: latency %.1f ns, four chains %.1f ns per product (medians of 200)\n", name, median(lat), median(thr))
	}
}
