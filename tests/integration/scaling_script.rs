//! `scripts/scaling.sh` in its quick mode writes the CSVs, with the binary cargo built for
//! this test (it builds nothing itself but the reference counter, into cargo's target
//! directory). That the plot crate draws the SVG from a CSV with this header is
//! `scripts/plot`'s own test (`cargo test --workspace`).

use std::process::Command;

#[test]
fn quick_sweep_writes_the_csvs_with_the_method_and_loop_that_ran() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let status = Command::new("bash")
        .arg(format!("{root}/scripts/scaling.sh"))
        .args(["12", out.to_str().unwrap()])
        .env("REPS", "1")
        .env("MIN_N", "12")
        .env("MODES", "none full")
        .env("BASE_MIN_N", "12")
        .env("BASE_MODES", "full")
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
        "cpu_model,logical_cpus,commit,n,method,kernel,symmetry,split_depth,threads,repetitions,median_s,min_s,max_s,speedup,efficiency,solutions"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.rsplit(',').collect()).collect();
    // Columns counted from the right (the CPU's name may hold commas).
    let (solutions, depth, mode, kernel, method) = (0, 8, 9, 10, 11);
    // n = 12 x two modes x (the search at depths 1..=3, the join) x thread counts.
    assert!(rows.len() >= 8, "{} rows", rows.len());
    for row in &rows {
        assert_eq!(row[solutions], "14200", "{row:?}");
        assert!(["none", "full"].contains(&row[mode]), "{row:?}");
        assert!(
            ["scalar", "avx2", "avx512"].contains(&row[kernel]),
            "{row:?}"
        );
        match row[method] {
            "search" => assert!(["1", "2", "3"].contains(&row[depth]), "{row:?}"),
            "join" => assert_eq!(row[depth], "", "{row:?}"),
            other => panic!("method {other}"),
        }
    }
    for ran in ["search", "join"] {
        assert!(rows.iter().any(|r| r[method] == ran), "{ran}");
    }
    assert!(!out.join("scaling.svg").exists(), "NO_PLOT=1 draws nothing");

    // The ratio to the reference counter, built from scripts/reference/textbook.c.
    let base = std::fs::read_to_string(out.join("baseline.csv")).unwrap();
    let mut lines = base.lines();
    assert_eq!(
        lines.next().unwrap(),
        "cpu_model,logical_cpus,commit,n,method,kernel,symmetry,threads,repetitions,reference_median_s,nqueens_median_s,ratio_median,subproblems,solutions"
    );
    let row: Vec<&str> = lines.next().unwrap().rsplit(',').collect();
    assert_eq!(
        (row[0], row[7], row[9], row[10]),
        ("14200", "full", "join", "12")
    );
    assert!(row[2].parse::<f64>().unwrap() > 0.0, "a ratio: {row:?}");
}
