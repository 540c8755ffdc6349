//! A thread that owns the store's connection: the UI sends it jobs and gets answers on
//! channels, so it never waits on SQLite (a lock held by another convo, a slow disk).
//!
//! The first job that fails turns the store off for the rest of the run: later jobs answer
//! with that same error at once, and the caller says it once.

use std::sync::mpsc;

use tokio::sync::oneshot;

use super::{Store, StoreError};

type Job = Box<dyn FnOnce(&mut Option<Store>, &mut Option<StoreError>) + Send>;

/// A handle on the store thread. Cheap to clone; the thread ends when every handle is gone
/// (after the jobs already sent).
#[derive(Clone)]
pub struct StoreTask {
    jobs: mpsc::Sender<Job>,
}

impl std::fmt::Debug for StoreTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreTask")
    }
}

impl StoreTask {
    /// Starts the thread with an open store.
    pub fn spawn(store: Store) -> std::io::Result<StoreTask> {
        StoreTask::spawn_with(move || Ok(store))
    }

    /// Starts the thread and opens the store on it (so a slow or locked file never holds the
    /// caller); a failure to open answers every job with that error.
    pub fn spawn_with<O>(open: O) -> std::io::Result<StoreTask>
    where
        O: FnOnce() -> Result<Store, StoreError> + Send + 'static,
    {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("convo-store".into())
            .spawn(move || {
                let (mut store, mut failed) = match open() {
                    Ok(s) => (Some(s), None),
                    Err(e) => (None, Some(e)),
                };
                while let Ok(job) = rx.recv() {
                    job(&mut store, &mut failed);
                }
                if let Some(s) = &store {
                    // Passive: a TRUNCATE here would hold other convos' writers while it waits
                    // for their readers.
                    let _ = s.checkpoint_passive();
                }
            })?;
        Ok(StoreTask { jobs: tx })
    }

    /// Runs `f` on the store thread; the answer comes on the returned channel. After a failure
    /// (this job's or an earlier one's) the answer is that error.
    pub fn run<R, F>(&self, f: F) -> oneshot::Receiver<Result<R, StoreError>>
    where
        R: Send + 'static,
        F: FnOnce(&mut Store) -> Result<R, StoreError> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |store, failed| {
            let answer = match (store.as_mut(), failed.as_ref()) {
                (_, Some(e)) => Err(e.clone()),
                (None, None) => Err(StoreError::Disabled),
                (Some(s), None) => f(s),
            };
            if let Err(e) = &answer
                && failed.is_none()
            {
                tracing::warn!(error = %e, "store turned off for this run");
                *failed = Some(e.clone());
                *store = None;
            }
            let _ = tx.send(answer);
        });
        if let Err(mpsc::SendError(job)) = self.jobs.send(job) {
            // The thread is gone (it never panics on data; this is shutdown): answer here.
            let mut none = None;
            job(&mut none, &mut Some(StoreError::Disabled));
        }
        rx
    }

    /// Like [`StoreTask::run`] for a job whose answer nobody waits for.
    pub fn submit<F>(&self, f: F)
    where
        F: FnOnce(&mut Store) -> Result<(), StoreError> + Send + 'static,
    {
        drop(self.run(f));
    }

    /// Runs `f` and waits for it without blocking the async runtime's thread.
    pub async fn call<R, F>(&self, f: F) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Store) -> Result<R, StoreError> + Send + 'static,
    {
        self.run(f).await.unwrap_or(Err(StoreError::Disabled))
    }
}
