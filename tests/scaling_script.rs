//! `scripts/scaling.sh` in its quick mode writes the CSV, with the binary cargo built for
//! this test (it builds nothing itself). That the plot crate draws the SVG from a CSV with
//! this header is `scripts/plot`'s own test (`cargo test --workspace`).

use std::process::Command;

#[test]
fn quick_sweep_writes_the_csv() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let status = Command::new("bash")
        .arg(format!("{root}/scripts/scaling.sh"))
        .args(["12", out.to_str().unwrap()])
        .env("REPS", "1")
        .env("MIN_N", "11")
        .env("NQUEENS_BIN", env!("CARGO_BIN_EXE_nqueens"))
        .env("NO_PLOT", "1")
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
    assert!(!out.join("scaling.svg").exists(), "NO_PLOT=1 draws nothing");
}
