//! The aligned table of `convo list`: cells fitted to their column's width.

use std::io::{self, Write};

use super::Printable;
use crate::text;

/// Writes a header line and one line per row, columns padded to their widest cell.
pub fn write_table<T: Printable>(out: &mut dyn Write, rows: &[Vec<String>]) -> io::Result<()> {
    write_table_cols(out, T::TABLE, rows)
}

/// [`write_table`] with the columns given: (header, widest cell).
pub fn write_table_cols(
    out: &mut dyn Write,
    cols: &[(&str, usize)],
    rows: &[Vec<String>],
) -> io::Result<()> {
    let fitted: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .zip(cols)
                .map(|(cell, (_, max))| text::fit(cell, *max).into_owned())
                .collect()
        })
        .collect();
    let widths: Vec<usize> = cols
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
    let line = |cells: Vec<&str>| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            l.push_str(c);
            if i + 1 < cells.len() {
                l.push_str(&" ".repeat(widths[i].saturating_sub(text::width(c)) + 2));
            }
        }
        l.push('\n');
        l
    };
    out.write_all(line(cols.iter().map(|(h, _)| *h).collect()).as_bytes())?;
    for r in &fitted {
        out.write_all(line(r.iter().map(String::as_str).collect()).as_bytes())?;
    }
    out.flush()
}
