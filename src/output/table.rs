//! The aligned table of `convo list`: cells fitted to their column's width, and on a terminal
//! the columns that do not fit its width dropped (a line never wraps). A table that is not on
//! a terminal is never cut.

use std::io::{self, Write};

use super::Printable;
use crate::text;

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

/// Which of the columns (natural widths `widths`, in order) fit in `width` cells: the first
/// always, then each in turn while the line still fits. `None`: all of them.
pub fn columns_that_fit(widths: &[usize], width: Option<usize>) -> usize {
    let Some(width) = width else {
        return widths.len();
    };
    let mut used = 0;
    for (i, w) in widths.iter().enumerate() {
        let need = if i == 0 { *w } else { used + GAP + w };
        if i > 0 && need > width {
            return i;
        }
        used = need;
    }
    widths.len()
}

/// [`write_table`] with the columns given: (header, widest cell on a terminal). With `width`
/// (stdout is a terminal that wide) cells are cut to their column's widest and the columns
/// that do not fit are left out, from the right; the first column is cut to the width if it
/// alone is wider. Without, every cell is written whole. Returns the headers left out.
pub fn write_table_cols<'c>(
    out: &mut dyn Write,
    cols: &[(&'c str, usize)],
    rows: &[Vec<String>],
    width: Option<usize>,
) -> io::Result<Vec<&'c str>> {
    let fitted: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .zip(cols)
                .map(|(cell, (_, max))| match width {
                    Some(_) => text::fit(cell, *max).into_owned(),
                    None => text::sanitize(cell).into_owned(),
                })
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, (h, _))| {
            fitted
                .iter()
                .map(|r| text::width(&r[i]))
                .chain([h.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let shown = columns_that_fit(&widths, width);
    widths.truncate(shown);
    if let (Some(w), Some(first)) = (width, widths.first_mut()) {
        *first = (*first).min(w);
    }
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
    out.write_all(line(&mut cols.iter().map(|(h, _)| *h)).as_bytes())?;
    for r in &fitted {
        out.write_all(line(&mut r.iter().map(String::as_str)).as_bytes())?;
    }
    out.flush()?;
    Ok(cols[shown..].iter().map(|(h, _)| *h).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(width: Option<usize>) -> (String, Vec<&'static str>) {
        let cols = [("ID", 36), ("NAME", 10), ("CREATED", 30)];
        let rows = vec![vec![
            "95c20205-0c46-44a2-acaa-4a4b8564994e".to_string(),
            "A name longer than ten".to_string(),
            "2026-11-25T12:36:19.123Z".to_string(),
        ]];
        let mut out = Vec::new();
        let hidden = write_table_cols(&mut out, &cols, &rows, width).unwrap();
        (String::from_utf8(out).unwrap(), hidden)
    }

    #[test]
    fn not_on_a_terminal_nothing_is_cut() {
        let (t, hidden) = table(None);
        assert!(
            t.contains("A name longer than ten  2026-11-25T12:36:19.123Z"),
            "{t}"
        );
        assert!(hidden.is_empty());
    }

    #[test]
    fn on_a_terminal_columns_that_do_not_fit_are_left_out_and_no_line_wraps() {
        let (t, hidden) = table(Some(200));
        assert!(t.contains("A name lo…  2026-11-25T12:36:19.123Z"), "{t}");
        assert!(hidden.is_empty());
        let (t, hidden) = table(Some(60));
        assert_eq!(hidden, ["CREATED"]);
        assert!(t.lines().all(|l| text::width(l) <= 60), "{t}");
        let (t, hidden) = table(Some(20));
        assert_eq!(hidden, ["NAME", "CREATED"]);
        assert!(t.lines().all(|l| text::width(l) <= 20), "{t}");
        assert!(t.contains("95c20205-0c46-44a2-…"), "{t}");
    }
}
