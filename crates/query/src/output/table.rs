//! The aligned table of `convo list`. On a terminal it fits the terminal's width, as the
//! browser does: cells are cut to their column's widest, then columns are narrowed down to
//! their least width and, if that is not enough, left out from the right, so a line never
//! wraps. A table that is not on a terminal is never cut.

use std::io::{self, Write};

use super::{Printable, TableCol};
use convo_text as text;

/// Spaces between two columns.
const GAP: usize = 2;

/// Writes a header line and one line per row, columns padded to their widest cell; returns
/// the headers of the columns left out to fit `width`.
pub fn write_table<T: Printable>(
    out: &mut dyn Write,
    rows: &[Vec<String>],
    width: Option<usize>,
) -> io::Result<Vec<&'static str>> {
    write_table_cols(out, T::TABLE, rows, width)
}

/// Which columns fit in `width` cells, and how wide: `None` for a column left out. Columns are
/// left out by `drop` rank (higher first), then from the right, those marked `keep` last and
/// the first never, until the rest fit
/// at their least (`mins`); then the shown ones are narrowed from the right only as far as
/// needed. `widths` are the natural widths. The first column alone is cut to the width.
pub fn fit_widths(
    widths: &[usize],
    mins: &[usize],
    keep: &[bool],
    drop: &[u8],
    width: usize,
) -> Vec<Option<usize>> {
    let line = |w: &mut dyn Iterator<Item = usize>| {
        let (mut sum, mut n) = (0usize, 0usize);
        for x in w {
            sum += x;
            n += 1;
        }
        sum + GAP * n.saturating_sub(1)
    };
    let least: Vec<usize> = widths.iter().zip(mins).map(|(w, m)| (*w).min(*m)).collect();
    let mut shown: Vec<bool> = vec![true; widths.len()];
    let least_line = |shown: &[bool]| {
        line(
            &mut least
                .iter()
                .zip(shown)
                .filter(|(_, s)| **s)
                .map(|(w, _)| *w),
        )
    };
    // Higher ranks first, then from the right.
    let mut order: Vec<usize> = (1..widths.len()).collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(drop.get(i).copied().unwrap_or(0)),
            std::cmp::Reverse(i),
        )
    });
    for pass_keep in [false, true] {
        for &i in &order {
            if least_line(&shown) <= width {
                break;
            }
            if keep.get(i).copied().unwrap_or(false) == pass_keep {
                shown[i] = false;
            }
        }
    }
    let mut w: Vec<Option<usize>> = widths
        .iter()
        .zip(&shown)
        .map(|(w, s)| s.then_some(*w))
        .collect();
    let mut excess = line(&mut w.iter().flatten().copied()).saturating_sub(width);
    for i in (0..w.len()).rev() {
        if let Some(x) = w[i].as_mut() {
            let cut = excess.min(*x - least[i]);
            *x -= cut;
            excess -= cut;
        }
    }
    if excess > 0
        && let Some(Some(first)) = w.first_mut()
    {
        // Only the first column, and wider than the terminal even at its least.
        *first = first.saturating_sub(excess).max(1);
    }
    w
}

/// [`write_table`] with the columns given. With `width` (stdout is a terminal that wide)
/// cells are cut to their column's `max` and the table fitted by [`fit_widths`]; without,
/// every cell is written whole (sanitised). Returns the headers left out.
pub fn write_table_cols(
    out: &mut dyn Write,
    cols: &[TableCol],
    rows: &[Vec<String>],
    width: Option<usize>,
) -> io::Result<Vec<&'static str>> {
    let fitted: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .zip(cols)
                .map(|(cell, c)| match width {
                    Some(_) => text::fit(cell, c.max).into_owned(),
                    None => text::sanitize(cell).into_owned(),
                })
                .collect()
        })
        .collect();
    let mut natural: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            fitted
                .iter()
                .map(|r| text::width(&r[i]))
                .chain([c.header.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let widths: Vec<Option<usize>> = match width {
        Some(w) => {
            let mins: Vec<usize> = cols.iter().map(|c| c.min.max(c.header.len())).collect();
            // A whole-or-short UUID is the first to give up room: short when all do not fit.
            let all = natural.iter().sum::<usize>() + GAP * natural.len().saturating_sub(1);
            if all > w {
                for (n, c) in natural.iter_mut().zip(cols) {
                    if c.short {
                        *n = (*n).min(c.min.max(c.header.len()));
                    }
                }
            }
            let keep: Vec<bool> = cols.iter().map(|c| c.keep).collect();
            let drop: Vec<u8> = cols.iter().map(|c| c.drop).collect();
            fit_widths(&natural, &mins, &keep, &drop, w)
        }
        None => natural.into_iter().map(Some).collect(),
    };
    let last = widths.iter().rposition(Option::is_some).unwrap_or(0);
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut l = String::new();
        for (i, c) in cells.enumerate() {
            let Some(Some(w)) = widths.get(i) else {
                continue;
            };
            let c = text::fit(c, *w);
            l.push_str(&c);
            if i < last {
                l.push_str(&" ".repeat(w.saturating_sub(text::width(&c)) + GAP));
            }
        }
        l.push('\n');
        l
    };
    out.write_all(line(&mut cols.iter().map(|c| c.header)).as_bytes())?;
    // A whole-or-short column narrower than its whole form shows the short one, uncut.
    let short_at: Vec<Option<usize>> = cols
        .iter()
        .zip(&widths)
        .map(|(c, w)| match w {
            Some(w) if c.short && *w < c.max => Some(c.min),
            _ => None,
        })
        .collect();
    for r in &fitted {
        let cells = r.iter().zip(&short_at).map(|(cell, s)| match s {
            Some(n) => cell.get(..*n).unwrap_or(cell),
            None => cell.as_str(),
        });
        out.write_all(line(&mut cells.into_iter()).as_bytes())?;
    }
    out.flush()?;
    Ok(cols
        .iter()
        .zip(&widths)
        .filter(|(_, w)| w.is_none())
        .map(|(c, _)| c.header)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(width: Option<usize>) -> (String, Vec<&'static str>) {
        let cols = [
            TableCol::new("ID", 36, 36),
            TableCol::new("NAME", 10, 6),
            TableCol::new("CREATED", 30, 20),
        ];
        let rows = vec![vec![
            "95c20205-0c46-44a2-acaa-4a4b8564994e".to_string(),
            "A name longer than ten".to_string(),
            "2026-11-25T12:36:19.123456Z".to_string(),
        ]];
        let mut out = Vec::new();
        let hidden = write_table_cols(&mut out, &cols, &rows, width).unwrap();
        (String::from_utf8(out).unwrap(), hidden)
    }

    #[test]
    fn not_on_a_terminal_nothing_is_cut() {
        let (t, hidden) = table(None);
        assert!(
            t.contains("A name longer than ten  2026-11-25T12:36:19.123456Z"),
            "{t}"
        );
        assert!(hidden.is_empty());
    }

    #[test]
    fn on_a_terminal_columns_are_narrowed_then_left_out_and_no_line_wraps() {
        let (t, hidden) = table(Some(200));
        assert!(t.contains("A name lo…  2026-11-25T12:36:19.123456Z"), "{t}");
        assert!(hidden.is_empty());
        // narrowed from the right first: the time to its least, then the name
        let (t, hidden) = table(Some(68));
        assert!(hidden.is_empty(), "{t}");
        assert!(t.contains("A name …  2026-11-25T12:36:19…"), "{t}");
        assert!(t.lines().all(|l| text::width(l) <= 68), "{t}");
        // too narrow for the time even at its least: left out, the name gets its room back
        let (t, hidden) = table(Some(50));
        assert_eq!(hidden, ["CREATED"]);
        assert!(t.contains("A name lo…"), "{t}");
        assert!(t.lines().all(|l| text::width(l) <= 50), "{t}");
        // a column marked keep outlives the ones left of it
        let cols = [
            TableCol::new("ID", 36, 36),
            TableCol::new("NAME", 10, 6),
            TableCol::new("DUE", 12, 12).kept(),
        ];
        let rows = vec![vec![
            "95c20205-0c46-44a2-acaa-4a4b8564994e".to_string(),
            "A name".to_string(),
            "overdue 3h".to_string(),
        ]];
        let mut out = Vec::new();
        let hidden = write_table_cols(&mut out, &cols, &rows, Some(52)).unwrap();
        let t = String::from_utf8(out).unwrap();
        assert_eq!(hidden, ["NAME"], "{t}");
        assert!(t.contains("4994e  overdue 3h"), "{t}");
        let (t, hidden) = table(Some(20));
        assert_eq!(hidden, ["NAME", "CREATED"]);
        assert!(t.lines().all(|l| text::width(l) <= 20), "{t}");
        assert!(t.contains("95c20205-0c46-44a2-…"), "{t}");
    }
}
