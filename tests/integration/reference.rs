//! The reference counter every speed ratio is measured against (scripts/reference/textbook.c)
//! counts right, built as the scripts build it.

use std::process::Command;

use nqueens_engine::published;

#[test]
fn the_reference_counter_matches_the_published_table() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("textbook");
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/textbook.c");
    let built = Command::new("cc")
        .args(["-O3", "-march=native", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&program)
        .arg(source)
        .status()
        .expect("a C compiler, cc (Rust links with it too)");
    assert!(built.success());
    for n in 0..=13u32 {
        let out = Command::new(&program).arg(n.to_string()).output().unwrap();
        assert!(out.status.success());
        let expected = format!("{n} {}\n", published::all(n).unwrap());
        assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    }
    for bad in ["29", "-1", "x", ""] {
        let out = Command::new(&program).arg(bad).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("from 0 to 28"));
    }
}
