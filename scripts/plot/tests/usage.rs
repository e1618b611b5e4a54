//! The plot's command line: `--help` is a usage and success, wrong arguments a usage and exit 2.

use std::process::Command;

#[test]
fn help_prints_the_usage_and_exits_0() {
    for flag in ["--help", "-h"] {
        let out = Command::new(env!("CARGO_BIN_EXE_nqueens-plot"))
            .arg(flag)
            .output()
            .unwrap();
        assert!(out.status.success(), "{flag}: {:?}", out.status);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.starts_with("usage: nqueens-plot SCALING_CSV OUT_SVG"),
            "{text}"
        );
        assert!(out.stderr.is_empty());
    }
}

#[test]
fn wrong_arguments_print_the_usage_and_exit_2() {
    for args in [&[][..], &["only-one.csv"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_nqueens-plot"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("usage: nqueens-plot"), "{err}");
    }
}
