//! The progress line's text: its fields, in full for a log, or fitted to a terminal's width by
//! shortening or leaving out whole fields (the least useful first), so that nothing is cut
//! inside a word or a number, and a bar drawn from the very share the text gives.

/// One field of a line: the text that comes before it where a field precedes it, and its
/// forms, fullest first. Past its last form a field is left out.
struct Field {
    sep: &'static str,
    forms: Vec<String>,
}

impl Field {
    fn new(sep: &'static str, forms: Vec<String>) -> Field {
        Field { sep, forms }
    }
}

/// `fields` in at most `width` columns: each of `steps` (an index into `fields`) takes that
/// field to its next shorter form, or leaves it out after its last, until the line fits.
/// Where every step is taken and it still does not fit, the line is the shortest there is.
fn fit(width: usize, fields: &[Field], steps: &[usize]) -> String {
    let line = |levels: &[usize]| {
        let mut text = String::new();
        for (field, &level) in fields.iter().zip(levels) {
            if let Some(form) = field.forms.get(level) {
                if !text.is_empty() {
                    text.push_str(field.sep);
                }
                text.push_str(form);
            }
        }
        text
    };
    let mut levels = vec![0; fields.len()];
    let mut text = line(&levels);
    for &i in steps {
        if text.chars().count() <= width {
            break;
        }
        levels[i] += 1;
        text = line(&levels);
    }
    text
}

/// A bar `width` columns inside its brackets, filled as far as `fraction` (0 to 1) goes:
/// `=` for each whole column done, `>` at its front once one is and while it is not full.
pub fn bar(fraction: f64, width: usize) -> String {
    let filled = ((fraction.clamp(0.0, 1.0) * width as f64).floor() as usize).min(width);
    let head = usize::from(filled > 0 && filled < width);
    format!(
        "[{}{}{}]",
        "=".repeat(filled),
        ">".repeat(head),
        " ".repeat(width - filled - head)
    )
}

/// The bar's width, and its width on a narrow terminal.
const BAR: [usize; 2] = [20, 10];

/// A duration as the line shows it: `42s`, `3m05s`, `2h03m05s`, and from 100 hours whole
/// hours (`5556h`).
pub fn seconds(s: f64) -> String {
    let s = s.round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        3600..360_000 => format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60),
        _ => format!("{}h", (s + 1800) / 3600),
    }
}

/// What the line says of the time left.
#[derive(Clone, Debug, PartialEq)]
pub enum Eta {
    /// Every part is counted.
    Done,
    /// The rate is not known yet (no part finished, or too short a time): it is being
    /// measured; where the per-n table predicts the count's time, about this much is left.
    Measuring(Option<String>),
    /// About this much is left, at the rate measured.
    Left(String),
}

impl Eta {
    fn forms(&self) -> Vec<String> {
        match self {
            Eta::Done => vec!["done".into()],
            Eta::Measuring(None) => {
                vec!["time left: measuring the rate".into(), "measuring".into()]
            }
            Eta::Measuring(Some(t)) => vec![
                format!("about {t} left as predicted, measuring the rate"),
                format!("{t} left predicted"),
            ],
            Eta::Left(t) => vec![format!("about {t} left"), format!("{t} left")],
        }
    }
}

/// Planning's line: what it builds, and the time since the process started.
pub struct Planning<'a> {
    pub what: &'a str,
    pub elapsed: String,
}

impl Planning<'_> {
    fn fields(&self) -> [Field; 2] {
        [
            Field::new(
                "",
                vec![format!("planning: {}", self.what), "planning".into()],
            ),
            Field::new(", ", vec![format!("{} elapsed", self.elapsed)]),
        ]
    }

    /// Every field in full.
    pub fn message(&self) -> String {
        fit(usize::MAX, &self.fields(), &[])
    }

    /// In at most `width` columns: what planning builds goes first, then the time.
    pub fn fitted(&self, width: usize) -> String {
        fit(width, &self.fields(), &[0, 1])
    }
}

/// Where a count stands, taken at one moment: the bar and the share come from the same
/// `fraction`.
pub struct Counting {
    /// The share of the estimated work finished, 0 to 1.
    pub fraction: f64,
    pub eta: Eta,
    /// The time since the process started.
    pub elapsed: String,
    /// Parts finished, of `total`.
    pub done: u64,
    pub total: u64,
}

impl Counting {
    /// The label, the bar, then the fields of the message (the share, the time left, the
    /// time elapsed, the parts).
    fn fields(&self, label: &str) -> [Field; 6] {
        let share = format!("{:.1}%", 100.0 * self.fraction);
        let parts = format!("{}/{}", self.done, self.total);
        [
            Field::new("", vec![label.to_string()]),
            Field::new(" ", BAR.map(|w| bar(self.fraction, w)).to_vec()),
            Field::new(" ", vec![format!("{share} of estimated work"), share]),
            Field::new(", ", self.eta.forms()),
            Field::new(", ", vec![format!("{} elapsed", self.elapsed)]),
            Field::new(", ", vec![format!("{parts} subproblems"), parts]),
        ]
    }

    /// The message of a plain line (off a terminal): every field in full, no label or bar.
    pub fn message(&self) -> String {
        fit(usize::MAX, &self.fields("")[2..], &[])
    }

    /// The terminal's line, `label` first, in at most `width` columns: the parts' word goes
    /// first, then half the bar, the share's words, the parts, the ETA's word, the time
    /// elapsed, the bar, the ETA and last the share.
    pub fn fitted(&self, label: &str, width: usize) -> String {
        const STEPS: [usize; 9] = [5, 1, 2, 5, 3, 4, 1, 3, 2];
        fit(width, &self.fields(label), &STEPS)
    }
}

/// The width of the terminal on stderr, as indicatif measures it when it pads the line: where
/// stderr is no terminal or gives no size, 80.
pub fn terminal_width() -> usize {
    terminal_size::terminal_size_of(std::io::stderr())
        .map_or(80, |(terminal_size::Width(w), _)| usize::from(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether every word of `line` is a word of the line in full (`full`), in the same
    /// order, the bars aside: nothing cut inside a word or a number.
    fn whole_words(line: &str, full: &str) -> bool {
        let words = |text: &str| -> Vec<String> {
            let unbarred = match (text.split_once('['), text.split_once(']')) {
                (Some((before, _)), Some((_, after))) => format!("{before} {after}"),
                _ => text.to_string(),
            };
            unbarred
                .split([' ', ','])
                .filter(|w| !w.is_empty())
                .map(String::from)
                .collect()
        };
        let mut all = words(full).into_iter();
        words(line).iter().all(|w| all.any(|f| &f == w))
    }

    fn counting(fraction: f64, eta: Eta, done: u64, total: u64) -> Counting {
        Counting {
            fraction,
            eta,
            elapsed: seconds(3723.0),
            done,
            total,
        }
    }

    #[test]
    fn the_line_fits_the_width_in_whole_fields() {
        let cases = [
            counting(0.0, Eta::Measuring(None), 0, 26370),
            counting(0.0, Eta::Measuring(Some(seconds(2e7))), 0, 26370),
            counting(0.123, Eta::Measuring(None), 130, 26370),
            counting(0.5, Eta::Left(seconds(5000.0)), 13185, 26370),
            counting(1.0, Eta::Done, 26370, 26370),
        ];
        for c in &cases {
            let full = c.fitted("n=20", usize::MAX);
            assert!(
                full.starts_with("n=20 [") && full.ends_with(" subproblems"),
                "{full}"
            );
            for width in [20, 30, 40, 50, 60, 80, 100, 120, 200] {
                let line = c.fitted("n=20", width);
                assert!(line.chars().count() <= width, "{width}: {line}");
                assert!(whole_words(&line, &full), "{width}: {line} from {full}");
                // The share is the last field to go.
                let share = format!("{:.1}%", 100.0 * c.fraction);
                assert!(line.contains(&share), "{width}: {line}");
                assert!(!line.ends_with(',') && !line.contains(",,"), "{line}");
            }
            assert_eq!(c.fitted("n=20", 200), full, "a wide terminal shows it all");
        }
        // 80 columns, the first part not finished: the rate is being measured.
        let line = cases[0].fitted("n=20", 80);
        assert_eq!(
            line,
            "n=20 [          ] 0.0%, time left: measuring the rate, 1h02m03s elapsed, 0/26370"
        );
        assert_eq!(
            cases[1].fitted("n=27", 100),
            "n=27 [          ] 0.0%, about 5556h left as predicted, measuring the rate, 1h02m03s elapsed, 0/26370"
        );
        for c in &cases {
            let line = c.fitted("n=27", usize::MAX);
            assert!(!line.contains("few seconds"), "{line}");
        }
        assert_eq!(
            cases[3].fitted("n=20", 40),
            "n=20 [=====>    ] 50.0%, 1h23m20s left"
        );
        assert_eq!(
            cases[3].fitted("n=20", 120),
            "n=20 [==========>         ] 50.0% of estimated work, about 1h23m20s left, \
             1h02m03s elapsed, 13185/26370 subproblems"
        );
    }

    #[test]
    fn the_bar_shows_the_share_the_text_gives() {
        for (fraction, text) in [
            (0.0, "0.0%"),
            (0.0004, "0.0%"),
            (0.26, "26.0%"),
            (1.0, "100.0%"),
        ] {
            let c = counting(fraction, Eta::Measuring(None), 1, 2);
            let line = c.fitted("n=12", 120);
            assert!(
                line.contains(&format!("] {text} of estimated work")),
                "{line}"
            );
            let inside = line.split_once('[').unwrap().1.split_once(']').unwrap().0;
            assert_eq!(inside.chars().count(), 20);
            let filled = inside.matches('=').count();
            assert_eq!(filled, (fraction * 20.0).floor() as usize, "{line}");
        }
        assert_eq!(bar(0.0, 10), "[          ]", "nothing done, nothing drawn");
        assert_eq!(bar(1.0, 10), "[==========]");
        assert_eq!(bar(0.55, 10), "[=====>    ]");
    }

    #[test]
    fn plain_lines_keep_every_field() {
        let c = counting(0.5, Eta::Left(seconds(90.0)), 3, 8);
        assert_eq!(
            c.message(),
            "50.0% of estimated work, about 1m30s left, 1h02m03s elapsed, 3/8 subproblems"
        );
        let p = Planning {
            what: "cutting the search's subproblems",
            elapsed: seconds(2.0),
        };
        assert_eq!(
            p.message(),
            "planning: cutting the search's subproblems, 2s elapsed"
        );
        assert_eq!(p.fitted(30), "planning, 2s elapsed");
        assert_eq!(p.fitted(10), "planning");
        assert_eq!(p.fitted(80), p.message());
    }
}
