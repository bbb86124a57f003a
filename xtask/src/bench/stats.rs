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

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

/// Prints the rows as a Markdown table (medians, p90 and the ratio of medians).
pub(crate) fn print_table(rows: &[Row]) {
    println!(
        "| measure | ours median ms | ours p90 ms | reference | ref median ms | ref p90 ms | ratio (medians) |"
    );
    println!("|---|---:|---:|---|---:|---:|---:|");
    for row in rows {
        let (o50, o90) = (percentile(&row.ours, 0.5), percentile(&row.ours, 0.9));
        let (r50, r90) = (
            percentile(&row.reference, 0.5),
            percentile(&row.reference, 0.9),
        );
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.2} |",
            row.name,
            ms(o50),
            ms(o90),
            row.reference_name,
            ms(r50),
            ms(r90),
            o50.as_secs_f64() / r50.as_secs_f64().max(1e-9)
        );
    }
}
