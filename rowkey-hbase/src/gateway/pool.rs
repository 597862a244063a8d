//! A small pool of gateway connections. Not a pool crate: a checkout must
//! end by the call's own deadline and keep the connect error's cause, and a
//! connection goes back only when its call ended cleanly (r2d2 and its
//! kin lose the cause in their own timeout error and test connections with
//! a round trip of their own).

use std::io;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use crate::gateway::transport::{Conn, Endpoint};

pub(crate) struct Pool {
    pub(crate) endpoint: Endpoint,
    size: usize,
    /// A connection idle longer is closed rather than lent: the gateway
    /// may have closed it (`hbase.thrift.server.socket.read.timeout`), and
    /// a call that is not retried would fail on it.
    idle_timeout: std::time::Duration,
    state: Mutex<State>,
    freed: Condvar,
}

struct State {
    /// Idle connections, each with the time it came back.
    idle: Vec<(Conn, Instant)>,
    /// Connections open: idle, lent or being opened.
    open: usize,
}

/// A connection lent by the pool. [`give_back`](Self::give_back) returns
/// it for the next call; dropped any other way (its call failed, or a
/// panic unwound through it) it is closed and its place in the pool freed,
/// so no slot is ever lost.
pub(crate) struct Lease {
    conn: Option<Conn>,
    pool: Arc<Pool>,
}

impl Lease {
    /// The connection's call ended cleanly: lent again.
    pub(crate) fn give_back(mut self) {
        if let Some(conn) = self.conn.take() {
            self.pool.idle(conn);
        }
    }
}

impl Deref for Lease {
    type Target = Conn;

    fn deref(&self) -> &Conn {
        self.conn
            .as_ref()
            .expect("a lease holds its connection until it ends")
    }
}

impl DerefMut for Lease {
    fn deref_mut(&mut self) -> &mut Conn {
        self.conn
            .as_mut()
            .expect("a lease holds its connection until it ends")
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.conn.take().is_some() {
            self.pool.discard();
        }
    }
}

/// Why a checkout failed.
pub(crate) enum Checkout {
    /// Opening a connection failed (`TimedOut`: not within the deadline).
    Connect(io::Error),
    /// Every connection was lent until the deadline.
    Busy,
}

impl Pool {
    pub(crate) fn new(endpoint: Endpoint, size: usize, idle_timeout: std::time::Duration) -> Pool {
        Pool {
            endpoint,
            size,
            idle_timeout,
            state: Mutex::new(State {
                idle: Vec::new(),
                open: 0,
            }),
            freed: Condvar::new(),
        }
    }

    /// An idle connection, a new one while fewer than the pool's size are
    /// open, or else the first one returned before `deadline`. The flag is
    /// true when the connection is new.
    pub(crate) fn take(self: &Arc<Self>, deadline: Instant) -> Result<(Lease, bool), Checkout> {
        let lease = |conn| Lease {
            conn: Some(conn),
            pool: Arc::clone(self),
        };
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some((conn, since)) = state.idle.pop() {
                if since.elapsed() <= self.idle_timeout {
                    return Ok((lease(conn), false));
                }
                // Idle too long: closed, its place free.
                drop(conn);
                state.open -= 1;
                continue;
            }
            if state.open < self.size {
                state.open += 1;
                drop(state);
                return match self.endpoint.open(deadline) {
                    Ok(conn) => Ok((lease(conn), true)),
                    Err(e) => {
                        self.discard();
                        Err(Checkout::Connect(e))
                    }
                };
            }
            let Some(wait) = deadline.checked_duration_since(Instant::now()) else {
                return Err(Checkout::Busy);
            };
            state = self
                .freed
                .wait_timeout(state, wait)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// A connection whose call ended cleanly, lent again.
    fn idle(&self, conn: Conn) {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .idle
            .push((conn, Instant::now()));
        self.freed.notify_one();
    }

    /// A connection that failed or timed out: closed (by dropping it, which
    /// the caller does), its place free for a new one.
    fn discard(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.open -= 1;
        drop(state);
        self.freed.notify_one();
    }

    /// Connections open now (idle or lent).
    pub(crate) fn open(&self) -> usize {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).open
    }
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;
    use std::time::Duration;

    use super::*;
    use crate::settings::{Protocol, Transport};

    /// A call that panics while it holds a connection (a bug, or a
    /// library's panic on a reply) frees its place: a pool of one still
    /// lends a connection afterwards, where it used to wait until every
    /// later call timed out.
    #[test]
    fn a_panic_during_a_call_frees_its_place_in_the_pool() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let endpoint = Endpoint::new(
            &addr,
            Transport::Buffered,
            Protocol::Binary,
            Duration::from_secs(2),
            None,
        )
        .unwrap();
        let pool = Arc::new(Pool::new(endpoint, 1, std::time::Duration::from_secs(30)));
        let soon = || Instant::now() + Duration::from_millis(500);
        let lent = Arc::clone(&pool);
        let panicked = std::thread::spawn(move || {
            let (_lease, _) = lent.take(soon()).ok().unwrap();
            panic!("a call that panics");
        })
        .join();
        assert!(panicked.is_err());
        assert_eq!(pool.open(), 0);
        let (lease, new) = pool
            .take(soon())
            .ok()
            .expect("a connection after the panic");
        assert!(new);
        lease.give_back();
        let (again, new) = pool.take(soon()).ok().unwrap();
        assert!(!new, "a connection given back is lent again");
        drop(again);
        assert_eq!(
            pool.open(),
            0,
            "a lease dropped without give_back is closed"
        );
    }
}
