//! A small pool of gateway connections. Not a pool crate: a checkout must
//! end by the call's own deadline and keep the connect error's cause, and a
//! connection goes back only when its call ended cleanly (r2d2 and its
//! kin lose the cause in their own timeout error and test connections with
//! a round trip of their own).

use std::io;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use crate::transport::{Conn, Endpoint};

pub(crate) struct Pool {
    pub(crate) endpoint: Endpoint,
    size: usize,
    state: Mutex<State>,
    freed: Condvar,
}

struct State {
    idle: Vec<Conn>,
    /// Connections open: idle, lent or being opened.
    open: usize,
}

/// Why a checkout failed.
pub(crate) enum Checkout {
    /// Opening a connection failed (`TimedOut`: not within the deadline).
    Connect(io::Error),
    /// Every connection was lent until the deadline.
    Busy,
}

impl Pool {
    pub(crate) fn new(endpoint: Endpoint, size: usize) -> Pool {
        Pool {
            endpoint,
            size,
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
    pub(crate) fn take(&self, deadline: Instant) -> Result<(Conn, bool), Checkout> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(conn) = state.idle.pop() {
                return Ok((conn, false));
            }
            if state.open < self.size {
                state.open += 1;
                drop(state);
                return match self.endpoint.open(deadline) {
                    Ok(conn) => Ok((conn, true)),
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
    pub(crate) fn give_back(&self, conn: Conn) {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .idle
            .push(conn);
        self.freed.notify_one();
    }

    /// A connection that failed or timed out: closed (by dropping it, which
    /// the caller does), its place free for a new one.
    pub(crate) fn discard(&self) {
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
