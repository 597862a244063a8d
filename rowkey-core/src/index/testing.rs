//! A store that fails on purpose, for crash tests of indexed tables on
//! every engine: [`FailAt`] wraps a [`Store`] and fails the write step
//! you name, as a process that dies there would stop.

use alloc::vec::Vec;
use core::fmt;
use core::sync::atomic::{AtomicU64, Ordering};

use super::{Page, Store, StoreTx};
use crate::scan::KeyFilter;

/// A [`Store`] whose `n`th write step from [`fail_at`](Self::fail_at) on
/// (a `put` or `delete` of a [`StoreTx`]; steps count from 1) fails with
/// [`Failed::Injected`] instead of running. On an engine with
/// transactions the failed write leaves nothing; on one without, the
/// steps before it stay written, as after a crash. The tests of every
/// engine's index store use it (`rowkey-core/tests/index.rs`).
#[derive(Debug)]
pub struct FailAt<S> {
    inner: S,
    /// The step that fails, counted from arming; 0: none.
    at: AtomicU64,
    steps: AtomicU64,
}

impl<S> FailAt<S> {
    /// `inner`, failing nothing until [`fail_at`](Self::fail_at).
    pub fn new(inner: S) -> Self {
        FailAt {
            inner,
            at: AtomicU64::new(0),
            steps: AtomicU64::new(0),
        }
    }

    /// Fails the `step`th write step from now (1: the next one); the steps
    /// after it run again.
    pub fn fail_at(&self, step: u64) {
        self.steps.store(0, Ordering::SeqCst);
        self.at.store(step, Ordering::SeqCst);
    }

    /// Fails nothing from now on.
    pub fn disarm(&self) {
        self.at.store(0, Ordering::SeqCst);
    }

    /// Write steps run or failed since [`fail_at`](Self::fail_at).
    pub fn steps(&self) -> u64 {
        self.steps.load(Ordering::SeqCst)
    }

    /// The store underneath.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn step(&self) -> Result<(), u64> {
        let n = self.steps.fetch_add(1, Ordering::SeqCst) + 1;
        if self.at.load(Ordering::SeqCst) == n {
            self.at.store(0, Ordering::SeqCst);
            Err(n)
        } else {
            Ok(())
        }
    }
}

/// The error of a [`FailAt`] store.
#[derive(Debug)]
pub enum Failed<E> {
    /// The step failed on purpose (its number).
    Injected(u64),
    /// The store underneath failed.
    Store(E),
}

impl<E: fmt::Display> fmt::Display for Failed<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failed::Injected(step) => write!(f, "write step {step} failed on purpose"),
            Failed::Store(e) => e.fmt(f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for Failed<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Failed::Injected(_) => None,
            Failed::Store(e) => Some(e),
        }
    }
}

/// A step of a [`FailAt`] store's write.
pub struct FailTx<'a, S: Store> {
    store: &'a FailAt<S>,
    inner: &'a mut (dyn StoreTx<Error = S::Error> + 'a),
}

impl<S: Store> StoreTx for FailTx<'_, S> {
    type Error = Failed<S::Error>;

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error> {
        self.inner.get(key).map_err(Failed::Store)
    }

    fn get_many(&mut self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, Self::Error> {
        self.inner.get_many(keys).map_err(Failed::Store)
    }

    fn put(&mut self, rows: &[(Vec<u8>, Vec<u8>)], ts: u64) -> Result<(), Self::Error> {
        self.store.step().map_err(Failed::Injected)?;
        self.inner.put(rows, ts).map_err(Failed::Store)
    }

    fn put_cells(
        &mut self,
        rows: &[(Vec<u8>, Vec<super::Cell>)],
        ts: u64,
    ) -> Result<(), Self::Error> {
        self.store.step().map_err(Failed::Injected)?;
        self.inner.put_cells(rows, ts).map_err(Failed::Store)
    }

    fn delete(&mut self, keys: &[Vec<u8>], ts: u64) -> Result<(), Self::Error> {
        self.store.step().map_err(Failed::Injected)?;
        self.inner.delete(keys, ts).map_err(Failed::Store)
    }
}

/// The error inside the wrapped store's write: the caller's, or the
/// store's own (its commit).
enum Inner<E, S> {
    Outer(E),
    Store(S),
}

impl<E, S> From<S> for Inner<E, S> {
    fn from(e: S) -> Self {
        Inner::Store(e)
    }
}

impl<S: Store> Store for FailAt<S> {
    type Error = Failed<S::Error>;

    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> Result<Page, Self::Error> {
        self.inner
            .scan(from, stop, filter, limit)
            .map_err(Failed::Store)
    }

    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, Self::Error> {
        self.inner.get_many(keys).map_err(Failed::Store)
    }

    fn split_hints(&self, from: &[u8], stop: &[u8]) -> Result<Vec<Vec<u8>>, Self::Error> {
        self.inner.split_hints(from, stop).map_err(Failed::Store)
    }

    fn write<R, E: From<Self::Error>>(
        &self,
        steps: impl FnOnce(&mut dyn StoreTx<Error = Self::Error>) -> Result<R, E>,
    ) -> Result<R, E> {
        let result = self.inner.write(|inner| {
            let mut tx = FailTx { store: self, inner };
            steps(&mut tx).map_err(Inner::Outer)
        });
        result.map_err(|e| match e {
            Inner::Outer(e) => e,
            Inner::Store(e) => E::from(Failed::Store(e)),
        })
    }
}
