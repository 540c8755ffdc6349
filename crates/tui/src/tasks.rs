//! The runtime's background tasks (fetches, refreshes, exports, profile loads), spawned so that
//! a panic in one of them becomes a message on screen instead of a dead task.
//!
//! The choice (README, docs/reliability.md): a panicking task does not end convo. Its panic is
//! caught where the task runs and comes back as [`Msg::TaskFailed`]; a fetch then fails like a
//! network error (the loaded rows stay, `r` tries again), an export or a profile load says it
//! failed. While a task runs, the panic hook ([`super::terminal`]) only logs the panic: the
//! default hook would print it over the alternate screen. A panic anywhere else (the loop,
//! drawing, another thread) restores the terminal and ends the program with the message.

use std::any::Any;
use std::cell::Cell;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::FutureExt as _;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use super::msg::{Msg, Task};

thread_local! {
    /// Set while this thread runs (polls) a task spawned here.
    static IN_TASK: Cell<bool> = const { Cell::new(false) };
}

/// True on a thread that is running one of the runtime's background tasks right now.
pub fn in_task() -> bool {
    IN_TASK.with(Cell::get)
}

/// Marks the thread as running a task until dropped (also when unwinding).
struct Marked(bool);

impl Marked {
    fn set() -> Marked {
        Marked(IN_TASK.with(|f| f.replace(true)))
    }
}

impl Drop for Marked {
    fn drop(&mut self) {
        IN_TASK.with(|f| f.set(self.0));
    }
}

/// A future whose every poll runs marked.
struct MarkedFuture<F>(Pin<Box<F>>);

impl<F: Future> Future for MarkedFuture<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let _marked = Marked::set();
        self.0.as_mut().poll(cx)
    }
}

/// The text of a panic's payload (`panic!("…")` gives a `&str` or a `String`).
pub fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

fn failed(tx: &UnboundedSender<Msg>, task: Task, payload: &(dyn Any + Send)) {
    let _ = tx.send(Msg::TaskFailed {
        task,
        message: convo_text::one_line(&panic_text(payload), 300),
    });
}

/// Spawns `fut` on the runtime; if it panics, `task` comes back as [`Msg::TaskFailed`].
pub fn spawn<F>(task: Task, tx: &UnboundedSender<Msg>, fut: F) -> JoinHandle<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let tx = tx.clone();
    tokio::spawn(async move {
        let run = AssertUnwindSafe(MarkedFuture(Box::pin(fut))).catch_unwind();
        if let Err(payload) = run.await {
            failed(&tx, task, &*payload);
        }
    })
}

/// Runs `f` on the blocking pool; if it panics, `task` comes back as [`Msg::TaskFailed`].
pub fn spawn_blocking<F>(task: Task, tx: &UnboundedSender<Msg>, f: F)
where
    F: FnOnce() + Send + 'static,
{
    let tx = tx.clone();
    tokio::task::spawn_blocking(move || {
        let run = {
            let _marked = Marked::set();
            std::panic::catch_unwind(AssertUnwindSafe(f))
        };
        if let Err(payload) = run {
            failed(&tx, task, &*payload);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use convo_api::Resource;

    #[tokio::test]
    async fn a_panicking_task_comes_back_as_a_message_and_the_mark_is_cleared() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let task = Task::Page {
            tab: Resource::Visitors,
            generation: 7,
        };
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let s = seen.clone();
        spawn(task, &tx, async move {
            s.store(in_task(), std::sync::atomic::Ordering::SeqCst);
            tokio::task::yield_now().await;
            panic!("boom {}", 42);
        })
        .await
        .expect("the task itself ends normally: the panic was caught");
        assert!(seen.load(std::sync::atomic::Ordering::SeqCst));
        match rx.recv().await {
            Some(Msg::TaskFailed { task: t, message }) => {
                assert_eq!(t, task);
                assert_eq!(message, "boom 42");
            }
            other => panic!("expected TaskFailed, got {other:?}"),
        }
        assert!(!in_task(), "the mark does not outlive the task");

        spawn_blocking(Task::Export, &tx, || panic!("disk on fire"));
        match rx.recv().await {
            Some(Msg::TaskFailed { task, message }) => {
                assert_eq!(task, Task::Export);
                assert_eq!(message, "disk on fire");
            }
            other => panic!("expected TaskFailed, got {other:?}"),
        }
        spawn_blocking(Task::Profile, &tx, || {});
        spawn(Task::Export, &tx, async {}).await.expect("join");
        drop(tx);
        assert!(
            rx.recv().await.is_none(),
            "a task that ends well sends nothing"
        );
    }
}
