//! Plots `scaling.csv` from `scripts/scaling.sh`: for each method measured (the search at split
//! depth 2, or the smallest depth measured; the join, which has none) and each symmetry mode,
//! speedup against threads (one line per board size, with the ideal line) and median time
//! against board size on a log axis (one line per thread count). The title names the machine
//! and the counting loop; each panel's caption the method, depth and mode.
//!
//! Usage: nqueens-plot SCALING_CSV OUT_SVG

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use plotters::coord::CoordTranslate;
use plotters::prelude::*;

#[derive(Debug, Clone)]
struct Row {
    n: u32,
    method: String,
    kernel: String,
    symmetry: String,
    split_depth: Option<u32>,
    threads: u32,
    median_s: f64,
    speedup: f64,
}

/// The rows of a scaling CSV and the machine they were measured on. A CSV without a method
/// column predates the join (every row is the search); one without a kernel column does not
/// say which loop ran.
fn read(path: &str) -> Result<(Vec<Row>, String)> {
    let mut reader = csv::Reader::from_path(path).with_context(|| format!("reading {path}"))?;
    let headers = reader.headers()?.clone();
    let find = |name: &str| headers.iter().position(|h| h == name);
    let col = |name: &str| find(name).with_context(|| format!("{path}: no column {name}"));
    let (n, sym, depth, threads, median, speedup, cpu) = (
        col("n")?,
        col("symmetry")?,
        col("split_depth")?,
        col("threads")?,
        col("median_s")?,
        col("speedup")?,
        col("cpu_model")?,
    );
    let (method, kernel) = (find("method"), find("kernel"));
    let mut rows = Vec::new();
    let mut machine = String::new();
    for record in reader.records() {
        let r = record?;
        machine = r[cpu].to_string();
        rows.push(Row {
            n: r[n].parse()?,
            method: method.map_or("search", |m| &r[m]).to_string(),
            kernel: kernel.map_or("", |k| &r[k]).to_string(),
            symmetry: r[sym].to_string(),
            split_depth: match &r[depth] {
                "" => None,
                d => Some(d.parse()?),
            },
            threads: r[threads].parse()?,
            median_s: r[median].parse()?,
            speedup: r[speedup].parse()?,
        });
    }
    if rows.is_empty() {
        bail!("{path} has no rows");
    }
    Ok((rows, machine))
}

/// A tick label: at most three significant digits, no trailing zeros (0.3, not
/// 0.30000000000000004; 0.0001, 12, 1.5).
fn tick(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let decimals = (2 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// "1 thread", "2 threads".
fn threads_label(t: u32) -> String {
    format!("{t} thread{}", if t == 1 { "" } else { "s" })
}

/// Points per key (board size or thread count), each list in increasing x (a thread count or
/// a board size: whole numbers, so the axis has ticks only where they are).
fn group(
    rows: &[&Row],
    key: impl Fn(&Row) -> u32,
    point: impl Fn(&Row) -> (u32, f64),
) -> BTreeMap<u32, Vec<(u32, f64)>> {
    let mut groups: BTreeMap<u32, Vec<(u32, f64)>> = BTreeMap::new();
    for r in rows {
        groups.entry(key(r)).or_default().push(point(r));
    }
    for points in groups.values_mut() {
        points.sort_by_key(|p| p.0);
    }
    groups
}

/// One coloured line with dots and a legend entry per group.
fn draw_lines<DB, CT>(
    chart: &mut ChartContext<'_, DB, CT>,
    groups: BTreeMap<u32, Vec<(u32, f64)>>,
    label: impl Fn(u32) -> String,
) -> Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    CT: CoordTranslate<From = (u32, f64)>,
{
    for (k, (key, points)) in groups.into_iter().enumerate() {
        let colour = Palette99::pick(k).to_rgba();
        chart
            .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))?
            .label(label(key))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 15, y)], colour));
        chart.draw_series(
            points
                .into_iter()
                .map(|p| Circle::new(p, 3, colour.filled())),
        )?;
    }
    Ok(())
}

/// The legend, in the upper left corner: the lines start at the bottom left (speedup 1 at one
/// thread, the smallest board's time) and rise to the right, where their ends must show.
fn draw_legend<'a, DB, CT>(chart: &mut ChartContext<'a, DB, CT>) -> Result<()>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .draw()?;
    Ok(())
}

const USAGE: &str = "usage: nqueens-plot SCALING_CSV OUT_SVG

Plots the CSV of scripts/scaling.sh (speedup against threads, time against n) as SVG.
";

/// `--help` prints the usage (exit 0), other arguments than two paths print it on stderr
/// (exit 2), a plot that fails its error (exit 1).
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match &args[..] {
        [flag] if flag == "-h" || flag == "--help" => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        [input, output] => match plot(input, output) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprint!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Draws the CSV at `input` into the SVG at `output`.
fn plot(input: &str, output: &str) -> Result<()> {
    let (rows, machine) = read(input)?;
    let modes: Vec<&str> = ["none", "mirror", "full"]
        .into_iter()
        .filter(|m| rows.iter().any(|r| r.symmetry == *m))
        .collect();
    // Each method once: the search at its default depth (or the smallest measured).
    let mut shown: Vec<(&str, Option<u32>)> = Vec::new();
    for method in ["search", "join"] {
        let depths: BTreeSet<Option<u32>> = rows
            .iter()
            .filter(|r| r.method == method)
            .map(|r| r.split_depth)
            .collect();
        let depth = if depths.contains(&Some(2)) {
            Some(2)
        } else {
            depths.first().copied().flatten()
        };
        if !depths.is_empty() {
            shown.push((method, depth));
        }
    }
    let kernels: BTreeSet<&str> = rows
        .iter()
        .map(|r| r.kernel.as_str())
        .filter(|k| !k.is_empty())
        .collect();
    let loops = match kernels.len() {
        0 => String::new(),
        _ => format!(
            ", {} loop",
            kernels.into_iter().collect::<Vec<_>>().join(" and ")
        ),
    };

    let root = SVGBackend::new(
        output,
        (420 * modes.len() as u32, 380 * 2 * shown.len() as u32),
    )
    .into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!("nqueens thread scaling: {machine}{loops}");
    let root = root.titled(&title, ("sans-serif", 18))?;
    let panels = root.split_evenly((2 * shown.len(), modes.len()));
    for (m, &(method, depth)) in shown.iter().enumerate() {
        let what = match depth {
            Some(d) => format!("{method}, split depth {d}"),
            None => method.to_string(),
        };
        for (i, &mode) in modes.iter().enumerate() {
            let mine: Vec<&Row> = rows
                .iter()
                .filter(|r| r.method == method && r.split_depth == depth && r.symmetry == mode)
                .collect();
            let threads: BTreeSet<u32> = mine.iter().map(|r| r.threads).collect();
            let max_threads = threads.last().copied().unwrap_or(1).max(2);
            let ns: BTreeSet<u32> = mine.iter().map(|r| r.n).collect();

            // Speedup against threads, one line per n, and the ideal line.
            let top = mine
                .iter()
                .map(|r| r.speedup)
                .fold(max_threads as f64, f64::max)
                * 1.05;
            let x = (1..max_threads).with_key_points(threads.iter().copied().collect());
            let mut chart = ChartBuilder::on(&panels[2 * m * modes.len() + i])
                .caption(
                    format!("{what}, {mode}: speedup vs threads"),
                    ("sans-serif", 15),
                )
                .margin(8)
                .x_label_area_size(30)
                .y_label_area_size(40)
                .build_cartesian_2d(x, 0f64..top)?;
            chart
                .configure_mesh()
                .x_desc("threads")
                .y_desc("speedup")
                .x_label_formatter(&|v| v.to_string())
                .y_label_formatter(&|v| tick(*v))
                .draw()?;
            chart
                .draw_series(LineSeries::new(
                    [(1, 1.0), (max_threads, f64::from(max_threads))],
                    BLACK.stroke_width(1),
                ))?
                .label("ideal")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 15, y)], BLACK));
            let by_n = group(&mine, |r| r.n, |r| (r.threads, r.speedup));
            draw_lines(&mut chart, by_n, |n| format!("n = {n}"))?;
            draw_legend(&mut chart)?;

            // Median time against n on a log axis, one line per thread count.
            let (lo_n, hi_n) = (*ns.first().unwrap_or(&0), *ns.last().unwrap_or(&1));
            let lo_t = mine
                .iter()
                .map(|r| r.median_s)
                .fold(f64::INFINITY, f64::min)
                .max(1e-6)
                / 2.0;
            let hi_t = mine
                .iter()
                .map(|r| r.median_s)
                .fold(0.0, f64::max)
                .max(lo_t * 4.0)
                * 2.0;
            let x = (lo_n..hi_n.max(lo_n + 1)).with_key_points(ns.iter().copied().collect());
            let mut chart = ChartBuilder::on(&panels[(2 * m + 1) * modes.len() + i])
                .caption(
                    format!("{what}, {mode}: median time vs n"),
                    ("sans-serif", 15),
                )
                .margin(8)
                .x_label_area_size(30)
                .y_label_area_size(50)
                .build_cartesian_2d(x, (lo_t..hi_t).log_scale())?;
            chart
                .configure_mesh()
                .x_desc("n")
                .y_desc("seconds")
                .x_label_formatter(&|v| v.to_string())
                .y_label_formatter(&|v| tick(*v))
                .draw()?;
            let by_t = group(&mine, |r| r.threads, |r| (r.n, r.median_s));
            draw_lines(&mut chart, by_t, threads_label)?;
            draw_legend(&mut chart)?;
        }
    }
    root.present()
        .with_context(|| format!("writing {output}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::{plot, tick};

    #[test]
    fn tick_labels_are_short() {
        let cases = [
            (0.30000000000000004, "0.3"),
            (0.1 + 0.2, "0.3"),
            (1.0, "1"),
            (1.5, "1.5"),
            (12.0, "12"),
            (0.0001, "0.0001"),
            (0.000123456, "0.000123"),
            (2.0000000000000004, "2"),
            (1234.6, "1235"),
            (0.0, "0"),
        ];
        for (v, text) in cases {
            assert_eq!(tick(v), text, "{v}");
        }
    }

    /// The value of attribute `name` in an element's opening tag.
    fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
        let from = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        &tag[from..from + tag[from..].find('"').unwrap()]
    }

    /// Each `<text>` element's opening tag and its text, trimmed.
    fn texts(svg: &str) -> Vec<(&str, &str)> {
        svg.split("<text")
            .skip(1)
            .map(|t| {
                let (tag, rest) = t.split_once('>').unwrap();
                (tag, rest.split_once("</text>").unwrap().0.trim())
            })
            .collect()
    }

    /// The opening tags of the elements called `name`.
    fn tags<'a>(svg: &'a str, name: &str) -> Vec<&'a str> {
        svg.split(&format!("<{name}"))
            .skip(1)
            .map(|t| t.split_once('>').unwrap().0)
            .collect()
    }

    /// A CSV with the header `scripts/scaling.sh` writes (tests/integration/scaling_script.rs checks the
    /// script writes exactly this header) draws an SVG with every panel, which says what it
    /// shows; its x ticks are the measured thread counts and board sizes, its y ticks short
    /// numbers, and no legend covers a point.
    #[test]
    fn scaling_csv_draws_an_svg_that_says_what_it_shows() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let csv = dir.join("scaling.csv");
        let mut text = String::from(
            "cpu_model,logical_cpus,commit,n,method,kernel,symmetry,split_depth,threads,repetitions,median_s,min_s,max_s,speedup,efficiency,solutions\n",
        );
        for (n, solutions) in [(11, 2680), (12, 14200)] {
            for mode in ["none", "mirror", "full"] {
                for (method, depth) in [("search", "1"), ("search", "2"), ("join", "")] {
                    for (t, s) in [(1, 1.0), (2, 1.9)] {
                        let m = 0.01 * f64::from(n - 10) / s;
                        text += &format!(
                            "\"Some CPU\",2,abc1234,{n},{method},avx2,{mode},{depth},{t},1,{m},{m},{m},{s},{:.3},{solutions}\n",
                            s / f64::from(t)
                        );
                    }
                }
            }
        }
        std::fs::write(&csv, text).unwrap();
        let out = dir.join("scaling.svg");
        plot(csv.to_str().unwrap(), out.to_str().unwrap()).unwrap();
        let svg = std::fs::read_to_string(&out).unwrap();
        let texts = texts(&svg);
        let has = |t: &str| texts.iter().any(|x| x.1 == t);
        assert!(
            has("nqueens thread scaling: Some CPU, avx2 loop"),
            "{texts:?}"
        );
        for mode in ["none", "mirror", "full"] {
            assert!(has(&format!(
                "search, split depth 2, {mode}: speedup vs threads"
            )));
            assert!(has(&format!("join, {mode}: median time vs n")));
        }
        assert!(!has("search, split depth 1, full: speedup vs threads"));
        assert!(has("1 thread") && has("2 threads") && !has("1 threads"));
        // Tick labels: x (centred) only at the thread counts and board sizes measured, y
        // (right-aligned) short numbers without float noise.
        let ticks = |anchor: &str| -> Vec<&str> {
            texts
                .iter()
                .filter(|(tag, t)| attr(tag, "text-anchor") == anchor && t.parse::<f64>().is_ok())
                .map(|x| x.1)
                .collect()
        };
        let x: BTreeSet<&str> = ticks("middle").into_iter().collect();
        assert_eq!(x, BTreeSet::from(["1", "2", "11", "12"]));
        let y = ticks("end");
        assert!(y.len() > 20, "{y:?}");
        for t in y {
            assert!(t.len() <= 6 && tick(t.parse().unwrap()) == t, "{t}");
        }
        // No legend box covers a data line or point (the lines are drawn 2 pixels wide; a
        // legend's own sample lines lie wholly inside it).
        let legends: Vec<[f64; 4]> = tags(&svg, "rect")
            .into_iter()
            .filter(|r| attr(r, "fill") == "#FFFFFF" && attr(r, "opacity") == "0.8")
            .map(|r| ["x", "y", "width", "height"].map(|a| attr(r, a).parse().unwrap()))
            .collect();
        assert_eq!(legends.len(), 12, "one per panel");
        let inside = |(px, py): (f64, f64)| {
            legends
                .iter()
                .any(|&[x, y, w, h]| (x..=x + w).contains(&px) && (y..=y + h).contains(&py))
        };
        let xy = |p: &str| -> (f64, f64) {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        };
        let mut checked = 0;
        for line in tags(&svg, "polyline") {
            if attr(line, "stroke-width") != "2" {
                continue;
            }
            let points: Vec<(f64, f64)> = attr(line, "points").split_whitespace().map(xy).collect();
            if points.iter().all(|&p| inside(p)) {
                continue;
            }
            for pair in points.windows(2) {
                let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
                for k in 0..=100 {
                    let f = f64::from(k) / 100.0;
                    let p = (x0 + f * (x1 - x0), y0 + f * (y1 - y0));
                    assert!(!inside(p), "a legend covers the line {pair:?} at {p:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000);
        for c in tags(&svg, "circle") {
            let p = (
                attr(c, "cx").parse().unwrap(),
                attr(c, "cy").parse().unwrap(),
            );
            assert!(!inside(p), "a legend covers the point {p:?}");
        }
    }
}
