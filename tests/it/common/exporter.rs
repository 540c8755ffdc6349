//! `convo exporter` as a process for tests: spawned against a demo server, its address read
//! from what it says on stderr, and plain HTTP/1.1 GETs to it (or to a real Prometheus).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::Demo;

/// A running `convo exporter`; killed when dropped.
pub struct Exporter {
    pub child: Child,
    /// `127.0.0.1:PORT`, where it serves.
    pub addr: String,
    /// What it said on stderr after its first line, read in the background.
    pub stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Exporter {
    /// `convo --base-url DEMO exporter --listen 127.0.0.1:0 ARGS` (unless ARGS say `--listen`) in `home` (with `--config
    /// CFG` first when given), once it says where it serves.
    pub fn start(
        demo: &Demo,
        home: &std::path::Path,
        config: Option<&str>,
        args: &[&str],
    ) -> Exporter {
        Exporter::start_at(&demo.url(), &demo.key(), home, config, args, &[])
    }

    /// [`Exporter::start`] with more environment (e.g. `CONVO_NOW`).
    pub fn start_env(
        demo: &Demo,
        home: &std::path::Path,
        config: Option<&str>,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Exporter {
        Exporter::start_at(&demo.url(), &demo.key(), home, config, args, env)
    }

    /// [`Exporter::start`] against any base URL and key.
    pub fn start_at(
        url: &str,
        key: &str,
        home: &std::path::Path,
        config: Option<&str>,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Exporter {
        let mut cmd = super::convo_std_cmd(home);
        cmd.env("CONVO_API_KEY", key).envs(env.iter().copied());
        if let Some(c) = config {
            cmd.args(["--config", c]);
        }
        cmd.args(["--base-url", url, "exporter"]);
        if !args.contains(&"--listen") {
            cmd.args(["--listen", "127.0.0.1:0"]);
        }
        cmd.args(args).stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("convo exporter starts");
        let mut err = BufReader::new(child.stderr.take().expect("stderr"));
        let mut first = String::new();
        err.read_line(&mut first).expect("a first line on stderr");
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut rest = String::new();
            for line in err.lines() {
                let Ok(l) = line else { break };
                rest.push_str(&l);
                rest.push('\n');
                *sink.lock().unwrap() = rest.clone();
            }
        });
        Exporter {
            child,
            addr,
            stderr,
        }
    }

    /// GET `path`: the status and the body.
    pub fn get(&self, path: &str) -> (u16, String) {
        get(&self.addr, path)
    }

    /// `/metrics`, once every view has been read (each has a `convo_view_up` sample).
    pub fn metrics_when_read(&self, views: usize) -> String {
        let t0 = Instant::now();
        loop {
            let (status, body) = self.get("/metrics");
            assert_eq!(status, 200, "{body}");
            let read = body
                .lines()
                .filter(|l| l.starts_with("convo_exporter_walks_total") && !l.ends_with(" 0"))
                .count();
            if read >= views {
                return body;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "views not read in 30 s:\n{body}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A plain HTTP/1.1 GET to `addr` (`host:port`): the status and the body.
pub fn get(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A config file `convo.toml` in `dir` holding `text`; its path.
pub fn config_file(dir: &std::path::Path, text: &str) -> String {
    super::file(dir, "convo.toml", text)
        .to_str()
        .unwrap()
        .to_string()
}

/// The value of the sample `name{labels}` in exposition text (labels as written, in order,
/// e.g. `view="Breaching"`); `None` when absent.
pub fn sample(text: &str, name: &str, labels: &str) -> Option<f64> {
    let want = if labels.is_empty() {
        format!("{name} ")
    } else {
        format!("{name}{{{labels}}} ")
    };
    text.lines()
        .find_map(|l| l.strip_prefix(&want))
        .and_then(|v| v.trim().parse().ok())
}
