//! Project automation (`cargo xtask <command>`):
//!
//! - `catalog [--check]`: regenerate `docs/tool-catalog.md` from the code (the composed host's
//!   `tools/list` and system prompt); `--check` fails when the committed file drifts. A test
//!   (`catalog_is_up_to_date`) runs the check under `cargo test`.
//! - `verify`: what CI runs: fmt check, clippy with warnings as errors, the test suite,
//!   then `publish-check`.
//! - `publish-check`: `cargo package --workspace` and `cargo doc --workspace --no-deps` with
//!   warnings as errors.
//! - `bench [--release] [--quick] [--iterations N]`: round trips, input-wait latency and open
//!   latency through our stack, and through the built `dsh-mcp` over stdio the MCP floor,
//!   concurrent sends, idle memory per session and flood isolation, each against its reference
//!   measured in the same run, reported as medians, p90, p99 and ratios (see `bench/`); then
//!   output throughput against a raw PTY and scrollback memory (`bench_throughput`).
//!   `--release` reruns the whole bench from a release build.
//! - `bench throughput [--release] [--quick]`: only the output throughput and scrollback
//!   memory figures.
//! - `bench concurrent [--release] [--quick]`: only the concurrent-sends figure and idle memory per
//!   session.
//! - `bench http [--release] [--quick]`: a load test of the Streamable HTTP server on loopback (concurrent
//!   sessions, send latency p50 / p99, no process left behind; `bench_http`).

#![allow(clippy::print_stdout)] // xtask is a developer CLI: its reports go to stdout.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};

mod bench;
mod bench_http;
mod bench_throughput;

const CATALOG_PATH: &str = "docs/tool-catalog.md";

fn workspace_root() -> PathBuf {
    // `cargo run` names the package's directory at run time too: a binary built from another
    // checkout sharing the target directory (a CI worktree since removed) still finds this one.
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest_dir
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The catalog text generated from the code.
fn generate_catalog() -> Result<String> {
    let ctx = dsh_mcp::compose(&dsh_mcp::Options::default())
        .map_err(|e| anyhow::anyhow!("composing the host failed: {e}"))?;
    Ok(dsh_mcp::tool_catalog_markdown(&ctx))
}

fn catalog(check: bool) -> Result<()> {
    let path = workspace_root().join(CATALOG_PATH);
    let generated = generate_catalog()?;
    if check {
        let committed = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        if committed != generated {
            bail!(
                "{CATALOG_PATH} is out of date with the code; run `cargo xtask catalog` and commit the result"
            );
        }
        eprintln!("{CATALOG_PATH} is up to date");
    } else {
        std::fs::write(&path, generated).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {CATALOG_PATH}");
    }
    Ok(())
}

fn run(cmd: &str, args: &[&str], env: &[(&str, &str)]) -> Result<()> {
    let shown_env: String = env.iter().map(|(k, v)| format!("{k}={v:?} ")).collect();
    eprintln!("$ {shown_env}{cmd} {}", args.join(" "));
    let status = Command::new(cmd)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(workspace_root())
        .status()
        .with_context(|| format!("running {cmd}"))?;
    if !status.success() {
        bail!("`{cmd} {}` failed with {status}", args.join(" "));
    }
    Ok(())
}

fn verify() -> Result<()> {
    run("cargo", &["fmt", "--all", "--", "--check"], &[])?;
    run(
        "cargo",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    run("cargo", &["test", "--workspace"], &[])?;
    publish_check()
}

/// The publishing checks: `cargo package` and `cargo doc` with warnings as errors.
fn publish_check() -> Result<()> {
    // Every publishable crate packages (metadata, readme, license, file list). `--no-verify`:
    // full verification works (cargo resolves the unpublished internal crates from a temporary
    // local registry) but rebuilds every crate from its packaged sources, which doubles CI
    // time; the build itself is checked by the steps above.
    run(
        "cargo",
        &[
            "package",
            "--workspace",
            "--exclude",
            "xtask",
            "--no-verify",
            "--allow-dirty",
        ],
        &[],
    )?;
    run(
        "cargo",
        &["doc", "--workspace", "--no-deps"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    Ok(())
}

const HELP: &str = "cargo xtask <command>

commands:
  catalog [--check]        regenerate docs/tool-catalog.md (or check it is up to date)
  verify                   fmt --check, clippy -D warnings, test --workspace, then publish-check
  publish-check            package --workspace and doc --workspace --no-deps with -D warnings
  bench [--release] [--quick] [--iterations N]
                           round trips, input-wait latency and open latency, each against a raw
                           PTY reference in the same run (default N=200; --quick: smaller samples);
                           through dsh-mcp over stdio: the MCP floor, concurrent sends, idle memory
                           per session, flood isolation; output throughput vs raw PTY and
                           scrollback memory (--release: build and run all of it optimised)
  bench throughput [--release] [--quick]
                           only the output throughput and scrollback memory figures
  bench concurrent [--release] [--quick]
                           only the 200 concurrent sends (--quick: 20) against as many raw PTYs,
                           and idle memory per session
  bench http [--release] [--quick]
                           load test of dsh-mcp --listen on loopback: 50 sessions (--quick: 10)
                           each open a terminal and send 20 commands (--quick: 5) concurrently;
                           send latency p50/p99; fails if a session's process outlives it
";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        eprint!("{HELP}");
        return Ok(());
    }
    match args.first().map(String::as_str) {
        Some("catalog") => catalog(args.iter().any(|a| a == "--check")),
        Some("verify") => verify(),
        Some("publish-check") => publish_check(),
        Some("bench") if args.iter().any(|a| a == "--release") && cfg!(debug_assertions) => {
            // Debug figures say little: rerun this command from a release build.
            let rest = args.iter().filter(|a| *a != "--release");
            let status = std::process::Command::new(
                std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()),
            )
            .current_dir(workspace_root())
            .args(["run", "--quiet", "--release", "-p", "xtask", "--"])
            .args(rest)
            .status()
            .context("cargo run --release -p xtask")?;
            if !status.success() {
                bail!("the release bench failed");
            }
            Ok(())
        }
        Some("bench") if args.get(1).map(String::as_str) == Some("http") => {
            bench_http::run(args.iter().any(|a| a == "--quick"))
        }
        Some("bench") if args.get(1).map(String::as_str) == Some("concurrent") => {
            bench::run(&bench::BenchOptions {
                iterations: 1,
                quick: args.iter().any(|a| a == "--quick"),
                root: workspace_root(),
                concurrent_only: true,
            })
        }
        Some("bench") if args.get(1).map(String::as_str) == Some("throughput") => {
            bench_throughput::run(args.iter().any(|a| a == "--quick"))
        }
        Some("bench") => {
            let iterations = args
                .iter()
                .position(|a| a == "--iterations")
                .and_then(|i| args.get(i + 1))
                .map(|n| n.parse::<usize>())
                .transpose()
                .context("--iterations takes a positive integer")?
                .unwrap_or(200);
            if iterations == 0 {
                bail!("--iterations takes a positive integer (got 0)");
            }
            bench::run(&bench::BenchOptions {
                iterations,
                quick: args.iter().any(|a| a == "--quick"),
                root: workspace_root(),
                concurrent_only: false,
            })?;
            bench_throughput::run(args.iter().any(|a| a == "--quick"))
        }
        None | Some("help" | "--help" | "-h") => {
            eprint!("{HELP}");
            Ok(())
        }
        Some(other) => bail!("unknown command {other:?}\n\n{HELP}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/tool-catalog.md` is generated from the code; this fails when it drifts.
    #[test]
    fn catalog_is_up_to_date() {
        let path = workspace_root().join(CATALOG_PATH);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        let generated = generate_catalog().unwrap();
        assert!(
            committed == generated,
            "{CATALOG_PATH} is out of date with the code; run `cargo xtask catalog` and commit the result"
        );
    }

    /// Every workspace member appears in ARCHITECTURE.md's code map.
    #[test]
    fn architecture_names_every_crate() {
        let root = workspace_root();
        let arch = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
        let mut missing = Vec::new();
        for entry in std::fs::read_dir(root.join("crates")).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if !arch.contains(&format!("`crates/{name}`")) {
                missing.push(name);
            }
        }
        assert!(missing.is_empty(), "ARCHITECTURE.md lacks: {missing:?}");
        assert!(arch.contains("### `xtask`"));
    }

    /// No pending insta snapshots are committed and no test is ignored without a reason.
    #[test]
    fn tidy() {
        let root = workspace_root();
        let mut problems = Vec::new();
        let mut stack = vec![root.join("crates"), root.join("xtask")];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let name = path.to_string_lossy();
                if name.ends_with(".snap.new") || name.ends_with(".pending-snap") {
                    problems.push(format!("pending snapshot: {name}"));
                }
                if name.ends_with(".rs")
                    && let Ok(text) = std::fs::read_to_string(&path)
                {
                    for (i, line) in text.lines().enumerate() {
                        let needle = concat!("#[", "ignore");
                        if line.contains(needle) && !line.contains("reason") {
                            problems.push(format!("{name}:{}: ignore without a reason", i + 1));
                        }
                        if line.contains(concat!("should", "_panic")) {
                            problems.push(format!("{name}:{}: a should-panic test", i + 1));
                        }
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }
}
