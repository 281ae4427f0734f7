//! The experiments' CSV tables: a header line and rows of plain fields
//! (numbers and names; no field holds a comma, quote or newline).

use std::collections::HashMap;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CsvError {
    #[error("empty file: expected a header line")]
    Empty,
    #[error("line {line}: {found} fields, the header has {want}")]
    Width {
        line: usize,
        found: usize,
        want: usize,
    },
    #[error("no column {0:?}")]
    NoColumn(String),
    #[error("line {line}, column {col}: {value:?} is not a number")]
    NotNumber {
        line: usize,
        col: String,
        value: String,
    },
}

/// A table with named columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Csv {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Csv {
    pub fn new(header: &[&str]) -> Csv {
        Csv {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row; fields must match the header in number.
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.header.len());
        self.rows.push(row);
    }

    pub fn to_text(&self) -> String {
        let mut s = self.header.join(",");
        s.push('\n');
        for r in &self.rows {
            s += &r.join(",");
            s.push('\n');
        }
        s
    }

    pub fn parse(text: &str) -> Result<Csv, CsvError> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, head) = lines.next().ok_or(CsvError::Empty)?;
        let header: Vec<String> = head.split(',').map(|s| s.trim().to_string()).collect();
        let mut rows = Vec::new();
        for (i, l) in lines {
            let r: Vec<String> = l.split(',').map(|s| s.trim().to_string()).collect();
            if r.len() != header.len() {
                return Err(CsvError::Width {
                    line: i + 1,
                    found: r.len(),
                    want: header.len(),
                });
            }
            rows.push(r);
        }
        Ok(Csv { header, rows })
    }

    /// Column indices by name, every one required.
    pub fn columns(&self, names: &[&str]) -> Result<HashMap<String, usize>, CsvError> {
        names
            .iter()
            .map(|n| {
                self.header
                    .iter()
                    .position(|h| h == n)
                    .map(|i| (n.to_string(), i))
                    .ok_or_else(|| CsvError::NoColumn(n.to_string()))
            })
            .collect()
    }

    /// Field `col` of row `r` as a number; `None` for an empty field.
    pub fn num(&self, r: usize, col: &str, at: usize) -> Result<Option<f64>, CsvError> {
        let v = &self.rows[r][at];
        if v.is_empty() {
            return Ok(None);
        }
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| CsvError::NotNumber {
                line: r + 2,
                col: col.to_string(),
                value: v.clone(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_names_bad_lines() {
        let mut c = Csv::new(&["a", "b"]);
        c.push(vec!["x".into(), "1.5".into()]);
        c.push(vec!["y".into(), String::new()]);
        let p = Csv::parse(&c.to_text()).unwrap();
        assert_eq!(p, c);
        let cols = p.columns(&["b"]).unwrap();
        assert_eq!(p.num(0, "b", cols["b"]), Ok(Some(1.5)));
        assert_eq!(p.num(1, "b", cols["b"]), Ok(None));
        assert_eq!(
            Csv::parse("a,b\n1\n").err(),
            Some(CsvError::Width {
                line: 2,
                found: 1,
                want: 2
            })
        );
        assert_eq!(
            p.columns(&["zz"]).err(),
            Some(CsvError::NoColumn("zz".into()))
        );
        let bad = Csv::parse("a,b\nx,abc\n").unwrap();
        assert!(
            bad.num(0, "b", 1)
                .unwrap_err()
                .to_string()
                .contains("line 2")
        );
        assert_eq!(Csv::parse("").err(), Some(CsvError::Empty));
    }
}
