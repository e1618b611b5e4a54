//! What a count costs, roughly, before anything is counted: a per-n table of thread-seconds
//! (whole counts to n = 22, results/zen4/2026-11-29-house/ and
//! results/zen4/2026-11-28-shared-ranks/; `estimate` from 23,
//! results/zen4/2026-11-28-partition-read-ahead/ and results/zen4/2026-11-29-short-words/),
//! for the warning that a count will not end soon and for the
//! progress line's first ETA. No sampling: a table look-up, in microseconds.

use nqueens_engine::{Method, Symmetry};

/// Thread-seconds of the join in full mode at n = 20 to 28: whole counts at n = 20 and 22,
/// n = 21 between them, `estimate`'s thread-hours from n = 23.
const JOIN: [(u32, f64); 9] = [
    (20, 49.2),
    (21, 311.0),
    (22, 1_974.0),
    (23, 4.663 * 3600.0),
    (24, 26.86 * 3600.0),
    (25, 230.7 * 3600.0),
    (26, 1_936.0 * 3600.0),
    (27, 11_400.0 * 3600.0),
    (28, 163_000.0 * 3600.0),
];

/// The join's growth per n below the table, from the whole counts of n = 17 to 20.
const JOIN_GROWTH: f64 = 4.4;

/// The search's thread-seconds at n = 18 in full mode with AVX-512, and its growth per n
/// from 17 to 18 (results/xeon/2026-11-22-search-vs-textbook/).
const SEARCH_18: f64 = 34.0;
const SEARCH_GROWTH: f64 = 7.7;

/// About how many thread-seconds counting an `n`-board takes with `method` (resolved for the
/// board) in `symmetry`: full mode's figure, times 4 for the mirror alone and 8 for none (the
/// work the square's symmetries save).
pub fn thread_seconds(n: u32, method: Method, symmetry: Symmetry) -> f64 {
    let full = match method.resolve(n) {
        Method::Join => match JOIN.iter().find(|&&(m, _)| m == n) {
            Some(&(_, s)) => s,
            None => JOIN[0].1 / JOIN_GROWTH.powi(JOIN[0].0 as i32 - n as i32),
        },
        _ => SEARCH_18 * SEARCH_GROWTH.powi(n as i32 - 18),
    };
    full * match symmetry {
        Symmetry::Full => 1.0,
        Symmetry::Mirror => 4.0,
        Symmetry::None => 8.0,
    }
}

/// The hours past which a count is warned of as one that will not end soon.
pub const LONG_HOURS: f64 = 1.0;

/// The warning for a count of an `n`-board (a shard of it: one of `shards`) on `threads`
/// threads, where the table puts it past [`LONG_HOURS`]: the hours, the table's rates near
/// `n`, and what to do about it (`checkpoint`: whether one is given already).
pub fn long_count_warning(
    n: u32,
    (method, symmetry): (Method, Symmetry),
    threads: usize,
    (checkpoint, shards): (bool, usize),
) -> Option<String> {
    let hours =
        thread_seconds(n, method, symmetry) / 3600.0 / threads.max(1) as f64 / shards.max(1) as f64;
    if hours <= LONG_HOURS {
        return None;
    }
    let rates: Vec<String> = [n.saturating_sub(2), n.saturating_sub(1), n]
        .iter()
        .filter(|&&m| m >= 16)
        .map(|&m| {
            let h = thread_seconds(m, method, symmetry) / 3600.0;
            format!("n = {m}: {} thread-hours", round(h))
        })
        .collect();
    let keep = if checkpoint {
        String::new()
    } else {
        " --checkpoint FILE keeps what is counted across interruptions;".to_string()
    };
    Some(format!(
        "warning: {}n = {n} takes about {} hours on {threads} thread{} (a 2-core Zen 4's rates: {}; each board about {}x the one before):{keep} `nqueens estimate {n}` measures this machine in minutes",
        if shards > 1 { "a shard of " } else { "" },
        round(hours),
        if threads == 1 { "" } else { "s" },
        rates.join(", "),
        round(
            thread_seconds(n, method, symmetry) / thread_seconds(n - 1, method, symmetry).max(1e-9)
        ),
    ))
}

/// `x` with two significant figures at most, grouped by thousands past 10,000.
fn round(x: f64) -> String {
    if x < 10.0 {
        return format!("{x:.1}");
    }
    let digits = x.log10().floor() as i32;
    let step = 10f64.powi((digits - 1).max(0));
    let rounded = ((x / step).round() * step) as u128;
    let text = rounded.to_string();
    let mut grouped = String::new();
    for (i, c) in text.chars().enumerate() {
        if i > 0 && (text.len() - i).is_multiple_of(3) && text.len() > 4 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_grows_with_n_and_the_modes_cost_more() {
        let mut last = 0.0;
        for n in 10..=32 {
            let s = thread_seconds(n, Method::Auto, Symmetry::Full);
            assert!(s > last, "n = {n}");
            last = s;
        }
        let full = thread_seconds(24, Method::Auto, Symmetry::Full);
        assert!(thread_seconds(24, Method::Auto, Symmetry::None) > full);
        assert!(thread_seconds(24, Method::Search, Symmetry::Full) > full);
    }

    #[test]
    fn counts_past_an_hour_on_their_threads_are_warned_of() {
        let auto = (Method::Auto, Symmetry::Full);
        assert_eq!(long_count_warning(20, auto, 2, (false, 1)), None);
        assert_eq!(long_count_warning(22, auto, 2, (false, 1)), None);
        let w = long_count_warning(27, auto, 2, (false, 1)).unwrap();
        assert!(w.contains("about 5700 hours on 2 threads"), "{w}");
        assert!(w.contains("n = 27: 11,000 thread-hours"), "{w}");
        assert!(
            w.contains("--checkpoint") && w.contains("nqueens estimate 27"),
            "{w}"
        );
        let kept = long_count_warning(27, auto, 2, (true, 1)).unwrap();
        assert!(!kept.contains("--checkpoint"), "{kept}");
        assert!(long_count_warning(23, auto, 2, (false, 1)).is_some());
        assert!(long_count_warning(30, auto, 64, (false, 1)).is_some());
        assert_eq!(
            long_count_warning(23, auto, 2, (false, 8)),
            None,
            "an eighth of it"
        );
    }

    #[test]
    fn figures_are_rounded_for_people() {
        assert_eq!(round(0.46), "0.5");
        assert_eq!(round(5700.4), "5700");
        assert_eq!(round(11_400.0), "11,000");
        assert_eq!(round(163_000.0), "160,000");
    }
}
