//! A JVM the test servers run in: started on the launcher's classpath,
//! its output read line by line, the tail of its log kept, killed and
//! reaped however its owner ends.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a test server may take to be ready.
pub(super) const START_TIMEOUT: Duration = Duration::from_secs(240);

/// A JVM the tests started: its process, the lines it prints (after its
/// `READY`, requests' answers) and the tail of its log.
pub(super) struct Jvm {
    pub(super) child: Child,
    pub(super) lines: mpsc::Receiver<String>,
    log: Arc<Mutex<VecDeque<String>>>,
}

impl Jvm {
    /// Starts `java`, a `java` command (the launcher's, with its
    /// arguments), its standard streams piped.
    pub(super) fn start(mut java: Command) -> io::Result<Jvm> {
        let mut child = java
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot start java: {e}")))?;
        let log = Arc::new(Mutex::new(VecDeque::new()));
        keep_tail(child.stderr.take().expect("piped"), Arc::clone(&log));
        let (lines_tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().expect("piped");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if lines_tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Jvm { child, lines, log })
    }

    /// Passes each line the JVM prints to `line` until it returns true,
    /// failing if the JVM exits or `deadline` passes first.
    pub(super) fn wait_for(
        &mut self,
        what: &str,
        deadline: Instant,
        mut line: impl FnMut(&str) -> bool,
    ) -> io::Result<()> {
        loop {
            match self.lines.recv_timeout(Duration::from_millis(200)) {
                Ok(l) if line(&l) => return Ok(()),
                Ok(_) | Err(_) => {}
            }
            if let Some(status) = self.child.try_wait()? {
                return Err(io::Error::other(format!(
                    "{what} exited ({status}) before it was ready; its log ends:\n{}",
                    self.log_tail()
                )));
            }
            if Instant::now() >= deadline {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "{what} was not ready within {START_TIMEOUT:?}; its log ends:\n{}",
                        self.log_tail()
                    ),
                ));
            }
        }
    }

    pub(super) fn log_tail(&self) -> String {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub(super) fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Jvm {
    /// A JVM is killed and reaped however its owner ends (a start that
    /// fails half-way included).
    fn drop(&mut self) {
        self.stop();
    }
}

/// Keeps the last 60 lines of `from` in `log`.
fn keep_tail(from: impl Read + Send + 'static, log: Arc<Mutex<VecDeque<String>>>) {
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            if log.len() == 60 {
                log.pop_front();
            }
            log.push_back(line);
        }
    });
}
