//! Plots `scaling.csv` from `scripts/scaling.sh`: for each symmetry mode, speedup against
//! threads (one line per board size, with the ideal line) and median time against board
//! size on a log axis (one line per thread count), at split depth 2 (or the smallest depth
//! measured).
//!
//! Usage: nqueens-plot SCALING_CSV OUT_SVG

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, bail};
use plotters::coord::CoordTranslate;
use plotters::prelude::*;

#[derive(Debug, Clone)]
struct Row {
    n: u32,
    symmetry: String,
    split_depth: u32,
    threads: u32,
    median_s: f64,
    speedup: f64,
}

fn read(path: &str) -> Result<(Vec<Row>, String)> {
    let mut reader = csv::Reader::from_path(path).with_context(|| format!("reading {path}"))?;
    let headers = reader.headers()?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .with_context(|| format!("{path}: no column {name}"))
    };
    let (n, sym, depth, threads, median, speedup, cpu) = (
        col("n")?,
        col("symmetry")?,
        col("split_depth")?,
        col("threads")?,
        col("median_s")?,
        col("speedup")?,
        col("cpu_model")?,
    );
    let mut rows = Vec::new();
    let mut machine = String::new();
    for record in reader.records() {
        let r = record?;
        machine = r[cpu].to_string();
        rows.push(Row {
            n: r[n].parse()?,
            symmetry: r[sym].to_string(),
            split_depth: r[depth].parse()?,
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

/// Points per key (board size or thread count), each list in increasing x.
fn group(
    rows: &[&&Row],
    key: impl Fn(&Row) -> u32,
    point: impl Fn(&Row) -> (f64, f64),
) -> BTreeMap<u32, Vec<(f64, f64)>> {
    let mut groups: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        groups.entry(key(r)).or_default().push(point(r));
    }
    for points in groups.values_mut() {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    groups
}

/// One coloured line with dots and a legend entry per group.
fn draw_lines<DB, CT>(
    chart: &mut ChartContext<'_, DB, CT>,
    groups: BTreeMap<u32, Vec<(f64, f64)>>,
    label: impl Fn(u32) -> String,
) -> Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    CT: CoordTranslate<From = (f64, f64)>,
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

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output] = &args[..] else {
        bail!("usage: nqueens-plot SCALING_CSV OUT_SVG");
    };
    plot(input, output)
}

/// Draws the CSV at `input` into the SVG at `output`.
fn plot(input: &str, output: &str) -> Result<()> {
    let (rows, machine) = read(input)?;
    let modes: Vec<String> = ["none", "mirror", "full"]
        .into_iter()
        .filter(|m| rows.iter().any(|r| r.symmetry == *m))
        .map(String::from)
        .collect();
    let depth = if rows.iter().any(|r| r.split_depth == 2) {
        2
    } else {
        rows.iter().map(|r| r.split_depth).min().unwrap_or(0)
    };
    let rows: Vec<&Row> = rows.iter().filter(|r| r.split_depth == depth).collect();
    let max_threads = rows.iter().map(|r| r.threads).max().unwrap_or(1);

    let root = SVGBackend::new(output, (420 * modes.len() as u32, 760)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!("nqueens scaling, split depth {depth}: {machine}");
    let root = root.titled(&title, ("sans-serif", 18))?;
    let panels = root.split_evenly((2, modes.len()));
    for (i, mode) in modes.iter().enumerate() {
        let mine: Vec<&&Row> = rows.iter().filter(|r| &r.symmetry == mode).collect();

        // Speedup against threads, one line per n, and the ideal line.
        let top = mine
            .iter()
            .map(|r| r.speedup)
            .fold(max_threads as f64, f64::max)
            * 1.05;
        let mut chart = ChartBuilder::on(&panels[i])
            .caption(format!("{mode}: speedup vs threads"), ("sans-serif", 15))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(40)
            .build_cartesian_2d(1f64..max_threads as f64, 0f64..top)?;
        chart
            .configure_mesh()
            .x_desc("threads")
            .y_desc("speedup")
            .draw()?;
        chart
            .draw_series(LineSeries::new(
                [(1.0, 1.0), (max_threads as f64, max_threads as f64)],
                BLACK.stroke_width(1),
            ))?
            .label("ideal")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 15, y)], BLACK));
        let by_n = group(&mine, |r| r.n, |r| (r.threads as f64, r.speedup));
        draw_lines(&mut chart, by_n, |n| format!("n = {n}"))?;
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()?;

        // Median time against n on a log axis, one line per thread count.
        let ns: BTreeSet<u32> = mine.iter().map(|r| r.n).collect();
        let (lo_n, hi_n) = (
            *ns.first().unwrap_or(&0) as f64,
            *ns.last().unwrap_or(&1) as f64,
        );
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
        let mut chart = ChartBuilder::on(&panels[modes.len() + i])
            .caption(format!("{mode}: median time vs n"), ("sans-serif", 15))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(lo_n..hi_n.max(lo_n + 1.0), (lo_t..hi_t).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("n")
            .y_desc("seconds")
            .draw()?;
        let by_t = group(&mine, |r| r.threads, |r| (r.n as f64, r.median_s));
        draw_lines(&mut chart, by_t, |t| format!("{t} threads"))?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()?;
    }
    root.present()
        .with_context(|| format!("writing {output}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::plot;

    /// A CSV with the header `scripts/scaling.sh` writes (tests/scaling_script.rs checks the
    /// script writes exactly this header) draws an SVG with every panel.
    #[test]
    fn scaling_csv_draws_an_svg() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let csv = dir.join("scaling.csv");
        let mut text = String::from(
            "cpu_model,logical_cpus,commit,n,symmetry,split_depth,threads,repetitions,median_s,min_s,max_s,speedup,efficiency,solutions\n",
        );
        for (n, solutions) in [(11, 2680), (12, 14200)] {
            for mode in ["none", "mirror", "full"] {
                for (t, s) in [(1, 1.0), (2, 1.9)] {
                    let m = 0.01 * f64::from(n - 10) / s;
                    text += &format!(
                        "\"Some CPU\",2,abc1234,{n},{mode},2,{t},1,{m},{m},{m},{s},{:.3},{solutions}\n",
                        s / f64::from(t)
                    );
                }
            }
        }
        std::fs::write(&csv, text).unwrap();
        let out = dir.join("scaling.svg");
        plot(csv.to_str().unwrap(), out.to_str().unwrap()).unwrap();
        let svg = std::fs::read_to_string(&out).unwrap();
        assert!(svg.contains("<svg") && svg.contains("speedup vs threads"));
        assert!(svg.contains("median time vs n") && svg.contains("Some CPU"));
    }
}
