// Package study draws and writes up what an m,n,k sweep (the mnk.sweep
// job kind) finds: the chart of the nodes each rung needed against the
// cells of the board, and the generated blocks of the sweep's study page,
// docs/where-search-stops.md. It is presentation, for cmd/analyze and its
// web face: it links gonum's plot, which the daemons that run the sweep do
// not need (TestDaemonsLinkNoGonum).
package study

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/woprlabs/wopr/pkg/engine/mnk/ladder"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// The chart of a sweep: one panel per k, nodes on a log scale against
// cells, a line per rung through the boards it solved (filled marks) and
// hollow marks where it stopped, the node budget as a dashed line, and one
// legend for the panels beside them. A panel per k rather than one plot of
// every (rung, k): eighteen lines on one plot cross each other too often to
// be read.

// rungColors are the Okabe-Ito colours, told apart by colour-blind readers
// too, in the order of ladder.Rungs.
var rungColors = []color.RGBA{
	{0, 0, 0, 255},       // black
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{0, 158, 115, 255},   // bluish green
	{204, 121, 167, 255}, // reddish purple
	{0, 114, 178, 255},   // blue
	{213, 94, 0, 255},    // vermilion
}

// rungShapes are the filled and the hollow mark of each rung, in turn.
var rungShapes = [][2]draw.GlyphDrawer{
	{draw.CircleGlyph{}, draw.RingGlyph{}},
	{draw.BoxGlyph{}, draw.SquareGlyph{}},
	{draw.PyramidGlyph{}, draw.TriangleGlyph{}},
}

func rungStyle(rung string) (color.Color, [2]draw.GlyphDrawer) {
	i := max(slices.Index(ladder.Rungs, rung), 0)
	return rungColors[i%len(rungColors)], rungShapes[i%len(rungShapes)]
}

// Chart draws the chart of the sweep report r as "svg" or "png".
func Chart(r *mnktasks.SweepReport, format string) ([]byte, error) {
	const perRow = 3
	panels := len(r.Ks)
	cols, rows := min(panels, perRow), (panels+perRow-1)/perRow
	panelW := 4.2 * vg.Inch
	if cols == 1 {
		panelW = 5 * vg.Inch
	}
	const (
		panelH  = 4.4 * vg.Inch
		legendW = 2.0 * vg.Inch
		titleH  = 0.5 * vg.Inch
	)
	w, h := vg.Length(cols)*panelW+legendW, vg.Length(rows)*panelH+titleH
	var c vg.CanvasSizer
	var write func() ([]byte, error)
	switch format {
	case "svg":
		s := vgsvg.New(w, h)
		c = s
		write = func() ([]byte, error) {
			var b bytes.Buffer
			if _, err := s.WriteTo(&b); err != nil {
				return nil, err
			}
			// The text was measured with Liberation Sans, which a
			// viewer may not have; Arial and Helvetica have its
			// metrics (Liberation was drawn to match Arial's).
			return bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"),
				[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")), nil
		}
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(120))
		c = img
		write = func() ([]byte, error) {
			var b bytes.Buffer
			_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(&b)
			return b.Bytes(), err
		}
	default:
		return nil, fmt.Errorf("chart format %q: want svg or png", format)
	}
	dc := draw.New(c)

	// The white ground, the title, then the panels and the legend.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	title := sansStyle(15)
	title.XAlign, title.YAlign = draw.XCenter, draw.YTop
	dc.FillText(title, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - 0.12*vg.Inch},
		fmt.Sprintf("Nodes to solve the empty board, per rung (node budget %s)", mnktasks.Approx(float64(r.NodeBudget))))
	area := dc
	area.Max.Y -= titleH
	area.Max.X -= legendW

	ymin, ymax := math.Inf(1), float64(r.NodeBudget)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, row := range r.Rows {
		ymin, ymax = min(ymin, float64(max(row.Nodes, 1))), max(ymax, float64(row.Nodes))
		xmin, xmax = min(xmin, float64(row.Cells)), max(xmax, float64(row.Cells))
	}
	if len(r.Rows) == 0 {
		ymin, xmin, xmax = 1, 0, 1
	}
	ymin, ymax = math.Pow(10, math.Floor(math.Log10(ymin))), math.Pow(10, math.Ceil(math.Log10(ymax*1.5)))
	var xticks plot.ConstantTicks
	for _, s := range r.Boards {
		b, err := mnktasks.ParseSweepBoard(s)
		if err == nil {
			xticks = append(xticks, plot.Tick{Value: float64(b.Cells()), Label: fmt.Sprintf("%d\n%s", b.Cells(), b)})
		}
	}

	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for i, k := range r.Ks {
		p := plot.New()
		styleText(p)
		p.Title.Text = fmt.Sprintf("k = %d", k)
		p.X.Label.Text = "cells (board)"
		p.Y.Label.Text = "nodes (log scale)"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = powerTicks{}
		p.X.Tick.Marker = xticks
		p.X.Min, p.X.Max = xmin-1.5, xmax+1.5
		p.Y.Min, p.Y.Max = ymin, ymax
		p.Add(plotter.NewGrid())
		budget := plotter.NewFunction(func(float64) float64 { return float64(r.NodeBudget) })
		budget.Color, budget.Width, budget.Dashes = color.Gray{96}, vg.Points(1.5), []vg.Length{vg.Points(6), vg.Points(4)}
		budget.Samples = 2
		p.Add(budget)
		for ri, rung := range r.Algorithms {
			col, shapes := rungStyle(rung)
			// Stopped cells sit on the budget line, one on another:
			// each rung's mark is moved a little sideways.
			shift := (float64(ri) - float64(len(r.Algorithms)-1)/2) * 0.4
			var done, stopped plotter.XYs
			for _, row := range r.Rows {
				if row.K != k || row.Algorithm != rung {
					continue
				}
				pt := plotter.XY{X: float64(row.Cells), Y: float64(max(row.Nodes, 1))}
				if row.Stopped {
					pt.X += shift
					stopped = append(stopped, pt)
				} else {
					done = append(done, pt)
				}
			}
			if len(done) > 0 {
				l, s, err := plotter.NewLinePoints(done)
				if err != nil {
					return nil, err
				}
				l.Color, l.Width = col, vg.Points(2)
				s.Color, s.Shape, s.Radius = col, shapes[0], vg.Points(3.5)
				p.Add(l, s)
			}
			if len(stopped) > 0 {
				s, err := plotter.NewScatter(stopped)
				if err != nil {
					return nil, err
				}
				s.Color, s.Shape, s.Radius = col, shapes[1], vg.Points(4.5)
				p.Add(s)
			}
		}
		plots[i/perRow][i%perRow] = p
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(12), PadY: vg.Points(12),
		PadTop: vg.Points(4), PadBottom: vg.Points(8), PadLeft: vg.Points(8), PadRight: vg.Points(4)}
	canvases := plot.Align(plots, tiles, area)
	for i := range plots {
		for j, p := range plots[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}

	leg := plot.NewLegend()
	leg.TextStyle = sansStyle(12)
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(28)
	leg.Padding = vg.Points(4)
	for _, rung := range r.Algorithms {
		col, shapes := rungStyle(rung)
		l := &plotter.Line{LineStyle: draw.LineStyle{Color: col, Width: vg.Points(2)}}
		s := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: col, Shape: shapes[0], Radius: vg.Points(3.5)}}
		leg.Add(rung, l, s)
	}
	leg.Add("stopped (hollow)", &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Gray{64}, Shape: draw.RingGlyph{}, Radius: vg.Points(4.5)}})
	leg.Add("node budget", &plotter.Line{LineStyle: draw.LineStyle{Color: color.Gray{96}, Width: vg.Points(1.5),
		Dashes: []vg.Length{vg.Points(6), vg.Points(4)}}})
	la := dc
	la.Min.X, la.Max.Y = dc.Max.X-legendW+vg.Points(8), dc.Max.Y-titleH-vg.Points(16)
	leg.Draw(la)
	return write()
}

// sansStyle is a sans-serif text style of size pt.
func sansStyle(pt vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, pt),
		Handler: plot.DefaultTextHandler}
}

// styleText sets every text of p in sans-serif, larger than the default.
func styleText(p *plot.Plot) {
	set := func(s *text.Style, pt vg.Length) {
		s.Font = font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, pt)
	}
	set(&p.Title.TextStyle, 14)
	set(&p.X.Label.TextStyle, 12)
	set(&p.Y.Label.TextStyle, 12)
	set(&p.X.Tick.Label, 10)
	set(&p.Y.Tick.Label, 10)
}

// powerTicks marks the powers of ten of a log axis, labelled 1, 10, 100,
// 1e3, ... (every other one when there are more than ten), and the
// multiples between them unlabelled.
type powerTicks struct{}

func (powerTicks) Ticks(lo, hi float64) []plot.Tick {
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	step := 1
	if e1-e0 > 10 {
		step = 2
	}
	var ticks []plot.Tick
	for e := e0; e <= e1; e++ {
		v := math.Pow(10, float64(e))
		label := ""
		if e%step == 0 {
			label = "1e" + strconv.Itoa(e)
			if e < 3 {
				label = strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
		if v >= lo && v <= hi {
			ticks = append(ticks, plot.Tick{Value: v, Label: label})
		}
		if step == 1 {
			for m := 2.0; m < 10; m++ {
				if x := m * v; x >= lo && x <= hi {
					ticks = append(ticks, plot.Tick{Value: x})
				}
			}
		}
	}
	return ticks
}
