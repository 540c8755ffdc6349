//! The aligned table of `convo list`. On a terminal it fits the terminal's width, as the
//! browser does: cells are cut to their column's widest, then columns are narrowed down to
//! their least width and, if that is not enough, left out from the right, so a line never
//! wraps. A table that is not on a terminal is never cut.

use std::io::{self, Write};

use super::Printable;
use crate::text;

/// Spaces between two columns.
const GAP: usize = 2;

/// One column of a table written to a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableCol {
    pub header: &'static str,
    /// Widest cell: longer ones are cut with `…`.
    pub max: usize,
    /// The narrowest the column is cut to before columns on its right are left out.
    pub min: usize,
}

impl TableCol {
    pub const fn new(header: &'static str, max: usize, min: usize) -> TableCol {
        TableCol { header, max, min }
    }
}

/// Writes a header line and one line per row, columns padded to their widest cell; returns
/// the headers of the columns left out to fit `width`.
pub fn write_table<T: Printable>(
    out: &mut dyn Write,
    rows: &[Vec<String>],
    width: Option<usize>,
) -> io::Result<Vec<&'static str>> {
    write_table_cols(out, T::TABLE, rows, width)
}

/// The widths of the first columns that fit in `width` cells: as many columns as fit when
/// each is narrowed to its least (`mins`), narrowed from the right only as far as needed.
/// `widths` are the columns' natural widths. The first column is always shown (cut to the
/// width if it alone is wider).
pub fn fit_widths(widths: &[usize], mins: &[usize], width: usize) -> Vec<usize> {
    let line = |w: &[usize]| w.iter().sum::<usize>() + GAP * w.len().saturating_sub(1);
    for k in (1..=widths.len()).rev() {
        let mut w = widths[..k].to_vec();
        let least: Vec<usize> = w.iter().zip(mins).map(|(w, m)| (*w).min(*m)).collect();
        if line(&least) > width && k > 1 {
            continue;
        }
        let mut excess = line(&w).saturating_sub(width);
        for i in (0..k).rev() {
            let cut = excess.min(w[i] - least[i]);
            w[i] -= cut;
            excess -= cut;
        }
        if excess > 0 {
            // Only the first column, and wider than the terminal even at its least.
            w[0] = w[0].saturating_sub(excess).max(1);
        }
        return w;
    }
    Vec::new()
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
    let natural: Vec<usize> = cols
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
    let widths = match width {
        Some(w) => {
            let mins: Vec<usize> = cols.iter().map(|c| c.min.max(c.header.len())).collect();
            fit_widths(&natural, &mins, w)
        }
        None => natural,
    };
    let shown = widths.len();
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut l = String::new();
        for (i, c) in cells.take(shown).enumerate() {
            let c = text::fit(c, widths[i]);
            l.push_str(&c);
            if i + 1 < shown {
                l.push_str(&" ".repeat(widths[i].saturating_sub(text::width(&c)) + GAP));
            }
        }
        l.push('\n');
        l
    };
    out.write_all(line(&mut cols.iter().map(|c| c.header)).as_bytes())?;
    for r in &fitted {
        out.write_all(line(&mut r.iter().map(String::as_str)).as_bytes())?;
    }
    out.flush()?;
    Ok(cols[shown..].iter().map(|c| c.header).collect())
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
        let (t, hidden) = table(Some(20));
        assert_eq!(hidden, ["NAME", "CREATED"]);
        assert!(t.lines().all(|l| text::width(l) <= 20), "{t}");
        assert!(t.contains("95c20205-0c46-44a2-…"), "{t}");
    }
}
