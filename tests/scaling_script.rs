//! `scripts/scaling.sh` in its quick mode writes the CSV and the plot.

use std::process::Command;

#[test]
fn quick_sweep_writes_csv_and_svg() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::env::temp_dir().join(format!("nqueens-scaling-{}", std::process::id()));
    let status = Command::new("bash")
        .arg(format!("{root}/scripts/scaling.sh"))
        .args(["12", out.to_str().unwrap()])
        .env("REPS", "1")
        .env("MIN_N", "11")
        .status()
        .expect("bash runs the script");
    assert!(status.success());
    let csv = std::fs::read_to_string(out.join("scaling.csv")).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert_eq!(
        header,
        "cpu_model,logical_cpus,commit,n,symmetry,split_depth,threads,repetitions,median_s,min_s,max_s,speedup,efficiency,solutions"
    );
    let rows: Vec<&str> = lines.collect();
    // n = 11, 12 x three modes x depths 1..=3 x at least one thread count.
    assert!(rows.len() >= 18, "{} rows", rows.len());
    for row in &rows {
        let solutions = row.rsplit(',').next().unwrap();
        assert!(["2680", "14200"].contains(&solutions), "{row}");
    }
    let svg = std::fs::read_to_string(out.join("scaling.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("speedup vs threads"));
    let _ = std::fs::remove_dir_all(out);
}
