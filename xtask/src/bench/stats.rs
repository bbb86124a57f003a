//! Samples, medians, p90 and the report table.

use std::time::Duration;

/// One measured figure against its reference from the same run.
pub(crate) struct Row {
    pub(crate) name: String,
    pub(crate) ours: Vec<Duration>,
    pub(crate) reference_name: &'static str,
    pub(crate) reference: Vec<Duration>,
}

pub(crate) fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

pub(crate) fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

/// Prints the rows as a Markdown table (medians, p90, p99 and the ratios of medians and p99).
pub(crate) fn print_table(rows: &[Row]) {
    println!(
        "| measure | ours median ms | p90 | p99 | reference | ref median ms | p90 | p99 | ratio median | ratio p99 |"
    );
    println!("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|");
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
    for row in rows {
        let [o50, o90, o99] = [0.5, 0.9, 0.99].map(|p| percentile(&row.ours, p));
        let [r50, r90, r99] = [0.5, 0.9, 0.99].map(|p| percentile(&row.reference, p));
        println!(
            "| {} ({}) | {} | {} | {} | {} ({}) | {} | {} | {} | {:.2} | {:.2} |",
            row.name,
            row.ours.len(),
            ms(o50),
            ms(o90),
            ms(o99),
            row.reference_name,
            row.reference.len(),
            ms(r50),
            ms(r90),
            ms(r99),
            ratio(o50, r50),
            ratio(o99, r99),
        );
    }
}
