//! Validates identifiers read from standard input, one per line, for comparisons with other
//! implementations (see `tests/oracle/compare_stdnum.py`).
//!
//! Input lines: `<type>\t<wire value>`, for example `orgnr\t556002-1361`.
//! Output lines, in the same order: `ok\t<canonical>` or `err\t<reason>`, where `<reason>` is
//! [`domain::subjects::identifier::IdentifierError::reason`] or `unknown-type` / `no-tab`.
//!
//! Every scheme the binary installs is read, with the rules of the country crates.
//!
//! Usage: `cargo run -q -p idreg --example identify [-- --today YYYY-MM-DD]`. Without
//! `--today`, ten-digit personal numbers are read as of today's date (UTC).

use chrono::NaiveDate;
use domain::subjects::identifier::{Identifier, IdentifierType};
use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

fn parse_date(text: &str) -> Option<NaiveDate> {
    let mut parts = text.splitn(3, '-').map(str::parse::<u32>);
    let (Some(Ok(y)), Some(Ok(m)), Some(Ok(d))) = (parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)
}

fn main() -> ExitCode {
    idreg::countries::install_schemes();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let today = match args.as_slice() {
        [] => chrono::Utc::now().date_naive(),
        [flag, date] if flag == "--today" => match parse_date(date) {
            Some(d) => d,
            None => {
                eprintln!("identify: --today wants a date YYYY-MM-DD");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: identify [--today YYYY-MM-DD] < lines of <type>\\t<value>");
            return ExitCode::from(2);
        }
    };

    let stdin = io::stdin();
    let mut out = BufWriter::new(io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("identify: cannot read standard input: {e}");
                return ExitCode::from(1);
            }
        };
        let answer = match line.split_once('\t') {
            None => "err\tno-tab".to_owned(),
            Some((ty, value)) => match IdentifierType::parse(ty) {
                None => "err\tunknown-type".to_owned(),
                Some(ty) => match Identifier::parse(ty, value, today) {
                    Ok(id) => format!("ok\t{}", id.expose_canonical()),
                    Err(e) => format!("err\t{}", e.reason()),
                },
            },
        };
        if writeln!(out, "{answer}").is_err() {
            return ExitCode::from(1);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
