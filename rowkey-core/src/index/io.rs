//! One implementation of the index's logic for blocking and async stores:
//! the logic is written once as `async fn`s (over [`Engine`](super::engine::Engine)
//! and [`Steps`]); an async table awaits them on an [`AsyncStore`], a
//! blocking table runs them on a [`Store`] with [`ready`], its adapters'
//! futures being ready at their first poll (they make the blocking call
//! when created).

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::future::Future;
use core::pin::pin;
use core::task::{Context, Poll, Waker};

use super::{AsyncStore, Cell, Stamped, StoreTx};

/// The steps of a write.
pub(super) trait Steps {
    type Error;
    fn get(&mut self, key: &[u8]) -> impl Future<Output = Result<Option<Vec<u8>>, Self::Error>>;
    /// A row's value and, where the store keeps it, its cell's timestamp:
    /// what the record's own writes were stamped with.
    fn get_stamped(&mut self, key: &[u8]) -> impl Future<Output = Result<Stamped, Self::Error>>;
    /// [`get_stamped`](Self::get_stamped) of many rows, in one call where
    /// the store has one.
    fn get_stamped_many(
        &mut self,
        keys: &[Vec<u8>],
    ) -> impl Future<Output = Result<Vec<Stamped>, Self::Error>>;
    fn put(
        &mut self,
        rows: &[(Vec<u8>, Vec<u8>)],
        ts: u64,
    ) -> impl Future<Output = Result<(), Self::Error>>;
    fn delete(
        &mut self,
        keys: &[Vec<u8>],
        ts: u64,
    ) -> impl Future<Output = Result<(), Self::Error>>;
    /// Data rows of a [`Record::CELLS`](super::Record::CELLS) record.
    fn put_cells(
        &mut self,
        rows: &[(Vec<u8>, Vec<Cell>)],
        ts: u64,
    ) -> impl Future<Output = Result<(), Self::Error>>;
    /// Each key's versions at or before its own timestamp.
    fn delete_each(
        &mut self,
        keys: &[(Vec<u8>, u64)],
    ) -> impl Future<Output = Result<(), Self::Error>>;
}

/// A blocking store's write in progress.
pub(super) struct InTx<'a, E>(pub(super) &'a mut dyn StoreTx<Error = E>);

impl<E> Steps for InTx<'_, E> {
    type Error = E;
    fn get(&mut self, key: &[u8]) -> impl Future<Output = Result<Option<Vec<u8>>, E>> {
        core::future::ready(self.0.get(key))
    }
    fn get_stamped(&mut self, key: &[u8]) -> impl Future<Output = Result<Stamped, E>> {
        // A blocking store is transactional or deletes by markers (HBase):
        // a delete at its own timestamp loses no racing write.
        core::future::ready(self.0.get(key).map(|v| v.map(|v| (v, None))))
    }
    fn get_stamped_many(
        &mut self,
        keys: &[Vec<u8>],
    ) -> impl Future<Output = Result<Vec<Stamped>, E>> {
        let values = self.0.get_many(keys);
        core::future::ready(values.map(|v| v.into_iter().map(|v| v.map(|v| (v, None))).collect()))
    }
    fn put(&mut self, rows: &[(Vec<u8>, Vec<u8>)], ts: u64) -> impl Future<Output = Result<(), E>> {
        core::future::ready(self.0.put(rows, ts))
    }
    fn delete(&mut self, keys: &[Vec<u8>], ts: u64) -> impl Future<Output = Result<(), E>> {
        core::future::ready(self.0.delete(keys, ts))
    }
    fn put_cells(
        &mut self,
        rows: &[(Vec<u8>, Vec<Cell>)],
        ts: u64,
    ) -> impl Future<Output = Result<(), E>> {
        core::future::ready(self.0.put_cells(rows, ts))
    }
    fn delete_each(&mut self, keys: &[(Vec<u8>, u64)]) -> impl Future<Output = Result<(), E>> {
        let mut result = Ok(());
        for (ts, keys) in super::by_timestamp(keys) {
            result = self.0.delete(&keys, ts);
            if result.is_err() {
                break;
            }
        }
        core::future::ready(result)
    }
}

/// An async store's writes, step by step.
pub(super) struct Async<'a, S>(pub(super) &'a S);

impl<S: AsyncStore> Steps for Async<'_, S> {
    type Error = S::Error;
    fn get(&mut self, key: &[u8]) -> impl Future<Output = Result<Option<Vec<u8>>, S::Error>> {
        self.0.get(key)
    }
    fn get_stamped(&mut self, key: &[u8]) -> impl Future<Output = Result<Stamped, S::Error>> {
        self.0.get_stamped(key)
    }
    fn put(
        &mut self,
        rows: &[(Vec<u8>, Vec<u8>)],
        ts: u64,
    ) -> impl Future<Output = Result<(), S::Error>> {
        self.0.put(rows, ts)
    }
    fn get_stamped_many(
        &mut self,
        keys: &[Vec<u8>],
    ) -> impl Future<Output = Result<Vec<Stamped>, S::Error>> {
        self.0.get_stamped_many(keys)
    }
    fn delete(&mut self, keys: &[Vec<u8>], ts: u64) -> impl Future<Output = Result<(), S::Error>> {
        self.0.delete(keys, ts)
    }
    /// An async store keeps one value a row: the cells' frame.
    async fn put_cells(&mut self, rows: &[(Vec<u8>, Vec<Cell>)], ts: u64) -> Result<(), S::Error> {
        let rows: Vec<(Vec<u8>, Vec<u8>)> = rows
            .iter()
            .map(|(key, cells)| (key.clone(), super::encode_cells(cells)))
            .collect();
        self.0.put(&rows, ts).await
    }
    fn delete_each(
        &mut self,
        keys: &[(Vec<u8>, u64)],
    ) -> impl Future<Output = Result<(), S::Error>> {
        self.0.delete_each(keys)
    }
}

/// The output of `f`, which is ready at its first poll: the logic awaits
/// nothing but a blocking store's adapters above.
pub(super) fn ready<F: Future>(f: F) -> F::Output {
    struct Noop;
    impl std::task::Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    static WAKER: std::sync::OnceLock<Waker> = std::sync::OnceLock::new();
    let waker = WAKER.get_or_init(|| Waker::from(Arc::new(Noop)));
    match pin!(f).poll(&mut Context::from_waker(waker)) {
        Poll::Ready(out) => out,
        // Only a bug of this module could wait: every future the logic
        // awaits on a blocking store is `core::future::ready`.
        Poll::Pending => unreachable!("a blocking store's step waited"),
    }
}
