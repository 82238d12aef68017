//! The seeds report's charts, as SVG text: bar charts (one bar per measured row, in one or
//! more series side by side, and the seed's published figure as a line where it has one), and
//! line charts on log axes (a figure against the payload).

use std::fmt::Write as _;

/// Colours of the series, in order.
const COLORS: [&str; 4] = ["#4c78a8", "#f58518", "#54a24b", "#e45756"];
const LEFT: f64 = 200.0;
const TOP: f64 = 40.0;
const WIDTH: f64 = 420.0;
const BAR: f64 = 16.0;

/// A horizontal bar chart: for each label, one bar per series (`series[i].1[j]` is the value of
/// label `j` in series `i`; `None` draws nothing); `reference`, if given, is drawn as a
/// vertical line with its caption. Values are in `unit`, the axis starts at 0.
pub fn bars(
    title: &str,
    unit: &str,
    labels: &[String],
    series: &[(&str, Vec<Option<f64>>)],
    reference: Option<(&str, f64)>,
) -> String {
    let most = (series.iter())
        .flat_map(|(_, values)| values.iter().flatten().copied())
        .chain(reference.map(|(_, v)| v))
        .fold(0.0, f64::max);
    let top = nice_ceiling(most);
    let x = |v: f64| LEFT + WIDTH * (v / top).clamp(0.0, 1.0);
    let group = BAR * series.len() as f64 + 8.0;
    let height = TOP + group * labels.len() as f64 + 50.0 + 18.0 * series.len() as f64;
    let mut body = String::new();
    for tick in 0..=4 {
        let v = top * f64::from(tick) / 4.0;
        let _ = writeln!(
            body,
            r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{b:.1}" stroke="#eee"/><text x="{px:.1}" y="{ty:.1}" text-anchor="middle">{v} {unit}</text>"##,
            px = x(v),
            b = TOP + group * labels.len() as f64,
            ty = TOP + group * labels.len() as f64 + 16.0,
            v = trim(v),
        );
    }
    for (j, label) in labels.iter().enumerate() {
        let y0 = TOP + group * j as f64 + 4.0;
        let _ = writeln!(
            body,
            r##"<text x="{lx}" y="{ly:.1}" text-anchor="end">{}</text>"##,
            escape(label),
            lx = LEFT - 6.0,
            ly = y0 + BAR * series.len() as f64 / 2.0 + 4.0,
        );
        for (i, (_, values)) in series.iter().enumerate() {
            let Some(v) = values.get(j).copied().flatten() else {
                continue;
            };
            let _ = writeln!(
                body,
                r##"<rect x="{LEFT}" y="{y:.1}" width="{w:.1}" height="{h}" fill="{c}"/><text x="{tx:.1}" y="{ty:.1}" font-size="10">{v}</text>"##,
                y = y0 + BAR * i as f64,
                w = x(v) - LEFT,
                h = BAR - 2.0,
                c = COLORS[i % COLORS.len()],
                tx = x(v) + 3.0,
                ty = y0 + BAR * i as f64 + BAR - 5.0,
                v = trim(v),
            );
        }
    }
    if let Some((caption, v)) = reference {
        let _ = writeln!(
            body,
            r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{b:.1}" stroke="#000" stroke-dasharray="4,3"/><text x="{px:.1}" y="{ty}" font-size="10">{}</text>"##,
            escape(caption),
            px = x(v),
            b = TOP + group * labels.len() as f64,
            ty = TOP - 4.0,
        );
    }
    let legend_y = TOP + group * labels.len() as f64 + 36.0;
    for (i, (name, _)) in series.iter().enumerate() {
        let y = legend_y + 18.0 * i as f64;
        let _ = writeln!(
            body,
            r##"<rect x="{LEFT}" y="{ry:.1}" width="12" height="12" fill="{c}"/><text x="{tx}" y="{y:.1}">{}</text>"##,
            escape(name),
            ry = y - 10.0,
            c = COLORS[i % COLORS.len()],
            tx = LEFT + 18.0,
        );
    }
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height:.0}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="22" font-size="15" font-weight="bold">{title}</text>
{body}</svg>
"##,
        w = LEFT + WIDTH + 80.0,
        title = escape(title),
    )
}

/// A line chart on log axes: each series is a line through its `(x, y)` points (points at or
/// below 0, and infinite or NaN ones, are left out: a log axis has no place for them).
/// `x_label` names the x axis, whose ticks are bytes (10 B, 1 kB, ...); `y_unit` the y axis's.
pub fn lines(
    title: &str,
    x_label: &str,
    y_unit: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> String {
    const H: f64 = 300.0;
    let points = || series.iter().flat_map(|(_, p)| p.iter().copied());
    let decades = |values: Vec<f64>| {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(0.0, f64::max);
        match lo.is_finite() && hi > 0.0 {
            true => (
                lo.log10().floor(),
                hi.log10().ceil().max(lo.log10().floor() + 1.0),
            ),
            false => (0.0, 1.0),
        }
    };
    let plotted = |v: &f64| v.is_finite() && *v > 0.0;
    let (x0, x1) = decades(points().map(|p| p.0).filter(plotted).collect());
    let (y0, y1) = decades(points().map(|p| p.1).filter(plotted).collect());
    let x = |v: f64| LEFT + WIDTH * (v.log10() - x0) / (x1 - x0);
    let y = |v: f64| TOP + H * (1.0 - (v.log10() - y0) / (y1 - y0));
    let mut body = String::new();
    for decade in x0 as i32..=x1 as i32 {
        let _ = writeln!(
            body,
            r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{b}" stroke="#eee"/><text x="{px:.1}" y="{ty}" text-anchor="middle">{label}</text>"##,
            px = x(10f64.powi(decade)),
            b = TOP + H,
            ty = TOP + H + 16.0,
            label = bytes_decade(decade),
        );
    }
    for decade in y0 as i32..=y1 as i32 {
        let v = 10f64.powi(decade);
        let _ = writeln!(
            body,
            r##"<line x1="{LEFT}" y1="{py:.1}" x2="{r}" y2="{py:.1}" stroke="#eee"/><text x="{tx}" y="{py:.1}" text-anchor="end">{} {unit}</text>"##,
            trim(v),
            py = y(v),
            r = LEFT + WIDTH,
            tx = LEFT - 6.0,
            unit = escape(y_unit),
        );
    }
    draw_series(
        &mut body,
        series,
        |px, py| plotted(&px) && plotted(&py),
        x,
        y,
    );
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="22" font-size="15" font-weight="bold">{title}</text>
<rect x="{LEFT}" y="{TOP}" width="{WIDTH}" height="{H}" fill="none" stroke="#999"/>
{body}<text x="{LEFT}" y="{ay}" fill="#555">{x_label} (log axes)</text>
</svg>
"##,
        w = LEFT + WIDTH + 130.0,
        h = TOP + H + 50.0,
        ay = TOP + H + 38.0,
        title = escape(title),
        x_label = escape(x_label),
    )
}

/// A line chart on linear axes, both from 0: each series is a line through its `(x, y)` points
/// (RSS against time, or against the number of nodes). `x_label` and `y_label` name the axes.
pub fn xy(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> String {
    const H: f64 = 300.0;
    let points = || series.iter().flat_map(|(_, p)| p.iter().copied());
    let x1 = nice_ceiling(points().map(|p| p.0).fold(0.0, f64::max));
    let y1 = nice_ceiling(points().map(|p| p.1).fold(0.0, f64::max));
    let x = |v: f64| LEFT + WIDTH * (v / x1).clamp(0.0, 1.0);
    let y = |v: f64| TOP + H * (1.0 - (v / y1).clamp(0.0, 1.0));
    let mut body = String::new();
    for tick in 0..=4 {
        let (vx, vy) = (x1 * f64::from(tick) / 4.0, y1 * f64::from(tick) / 4.0);
        let _ = writeln!(
            body,
            r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{b}" stroke="#eee"/><text x="{px:.1}" y="{ty}" text-anchor="middle">{vx}</text>"##,
            px = x(vx),
            b = TOP + H,
            ty = TOP + H + 16.0,
            vx = trim(vx),
        );
        let _ = writeln!(
            body,
            r##"<line x1="{LEFT}" y1="{py:.1}" x2="{r}" y2="{py:.1}" stroke="#eee"/><text x="{tx}" y="{py:.1}" text-anchor="end">{vy}</text>"##,
            py = y(vy),
            r = LEFT + WIDTH,
            tx = LEFT - 6.0,
            vy = trim(vy),
        );
    }
    draw_series(&mut body, series, |_, _| true, x, y);
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="22" font-size="15" font-weight="bold">{title}</text>
<rect x="{LEFT}" y="{TOP}" width="{WIDTH}" height="{H}" fill="none" stroke="#999"/>
{body}<text x="{LEFT}" y="{ay}" fill="#555">{x_label}</text><text x="10" y="{yy}" fill="#555">{y_label}</text>
</svg>
"##,
        w = LEFT + WIDTH + 190.0,
        h = TOP + H + 50.0,
        ay = TOP + H + 38.0,
        yy = TOP - 6.0,
        title = escape(title),
        x_label = escape(x_label),
        y_label = escape(y_label),
    )
}

/// Colours of a line chart's series, in order.
const COLORS_LINES: [&str; 6] = [
    "#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2",
];

/// Draws each series of a line chart as a polyline through the points `keep` accepts, placed
/// by `x` and `y`, with its name beside the chart, in [`COLORS_LINES`] order.
fn draw_series(
    body: &mut String,
    series: &[(String, Vec<(f64, f64)>)],
    keep: impl Fn(f64, f64) -> bool,
    x: impl Fn(f64) -> f64,
    y: impl Fn(f64) -> f64,
) {
    for (i, (name, points)) in series.iter().enumerate() {
        let color = COLORS_LINES[i % COLORS_LINES.len()];
        let drawn: Vec<String> = (points.iter())
            .filter(|&&(px, py)| keep(px, py))
            .map(|&(px, py)| format!("{:.1},{:.1}", x(px), y(py)))
            .collect();
        let _ = writeln!(
            body,
            r##"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/><text x="{lx}" y="{ly}" fill="{color}">{}</text>"##,
            drawn.join(" "),
            escape(name),
            lx = LEFT + WIDTH + 10.0,
            ly = TOP + 14.0 + 16.0 * i as f64,
        );
    }
}

/// 10 to the `power` bytes, in SI units: 10 B, 1 kB, 10 MB.
fn bytes_decade(power: i32) -> String {
    let units = ["B", "kB", "MB", "GB"];
    let unit = (power.max(0) / 3).min(3);
    format!(
        "{} {}",
        10u64.pow((power.max(0) - 3 * unit) as u32),
        units[unit as usize]
    )
}

/// The axis's end: `v` rounded up to 1, 2 or 5 times a power of ten (1 for nothing).
fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let decade = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|&c| c >= v)
        .unwrap_or(10.0 * decade)
}

/// A number as short as it reads: 3 significant digits, no trailing zeros.
fn trim(v: f64) -> String {
    let text = match v.abs() {
        0.0 => return "0".into(),
        a if a >= 100.0 => return format!("{v:.0}"),
        a if a >= 10.0 => format!("{v:.1}"),
        a if a >= 1.0 => format!("{v:.2}"),
        a if a >= 0.01 => format!("{v:.3}"),
        _ => format!("{v:.4}"),
    };
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_has_a_bar_per_value_and_the_seed_as_a_line() {
        let labels = vec!["callback".to_owned(), "wait-set".to_owned()];
        let svg = bars(
            "CPU <by> executor",
            "%",
            &labels,
            &[
                ("a", vec![Some(3.0), Some(1.5)]),
                ("b", vec![None, Some(7.0)]),
            ],
            Some(("seed", 2.0)),
        );
        // Three bars, three legend squares, the background.
        assert_eq!(svg.matches("<rect").count(), 3 + 2 + 1, "{svg}");
        assert!(svg.contains("stroke-dasharray"), "the seed's line: {svg}");
        assert!(svg.contains("CPU &lt;by&gt; executor"), "{svg}");
        assert!(svg.contains(">10 %<"), "the axis ends at 10: {svg}");
        assert!(svg.contains(">2.5 %<") && svg.contains(">1.5<"), "{svg}");
    }

    #[test]
    fn a_line_chart_spans_the_decades_of_its_points() {
        let svg = lines(
            "latency",
            "payload",
            "ms",
            &[
                ("a".into(), vec![(10.0, 0.05), (4e6, 20.0)]),
                ("b".into(), vec![(10.0, 0.0), (1e3, 1.0)]),
            ],
        );
        assert_eq!(svg.matches("<polyline").count(), 2, "{svg}");
        for tick in [">10 B<", ">1 kB<", ">10 MB<", ">0.01 ms<", ">100 ms<"] {
            assert!(svg.contains(tick), "{tick}: {svg}");
        }
        // b's point at 0 has no place on a log axis: one point is left.
        let b = svg.split("<polyline").nth(2).unwrap();
        let points = b
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(points.split(' ').count(), 1, "{points}");
    }

    #[test]
    fn an_infinite_or_nan_point_is_left_out_and_the_axes_stay_those_of_the_rest() {
        let svg = lines(
            "latency",
            "payload",
            "ms",
            &[(
                "a".into(),
                vec![
                    (10.0, 0.5),
                    (1e3, f64::INFINITY),
                    (f64::NAN, 2.0),
                    (1e3, 5.0),
                ],
            )],
        );
        // Decades 10 B to 1 kB on x, 0.1 to 10 ms on y: three ticks each.
        assert_eq!(svg.matches("stroke=\"#eee\"").count(), 3 + 3, "{svg}");
        assert!(!svg.contains("inf") && !svg.contains("NaN"), "{svg}");
    }

    #[test]
    fn a_linear_chart_starts_both_axes_at_zero_and_ends_them_round() {
        let svg = xy(
            "RSS over time",
            "s",
            "MB",
            &[
                ("a".into(), vec![(0.0, 10.0), (600.0, 10.5)]),
                ("b".into(), vec![(0.0, 30.0), (600.0, 31.0)]),
            ],
        );
        assert_eq!(svg.matches("<polyline").count(), 2, "{svg}");
        // x ends at 1000 (600 rounded up), y at 50 (31 rounded up); both start at 0.
        for tick in [">1000<", ">500<", ">50<", ">25<", ">0<"] {
            assert!(svg.contains(tick), "{tick}: {svg}");
        }
    }

    #[test]
    fn numbers_read_with_three_significant_digits_at_most() {
        assert_eq!(trim(0.0028), "0.0028");
        assert_eq!(trim(0.0125), "0.013");
        assert_eq!(trim(2.5), "2.5");
        assert_eq!(trim(10.0), "10");
        assert_eq!(trim(1234.5), "1234");
    }

    #[test]
    fn the_axis_ends_at_one_two_or_five_times_a_power_of_ten() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b;
        assert!(close(nice_ceiling(0.0028), 0.005));
        assert!(close(nice_ceiling(7.0), 10.0));
        assert!(close(nice_ceiling(120.0), 200.0));
        assert_eq!(nice_ceiling(0.0), 1.0);
    }
}
