//! The terminal's key stream, polled only when it has something to say.
//!
//! crossterm's `EventStream` does real work on every poll: it takes the global event reader's
//! lock, polls the terminal with a zero timeout and, when nothing is there, hands the task's
//! waker to its reader thread again. The runtime loop polls its input first on every turn, and
//! during `L` it turns once per page answer: thousands of times a second, with the reader thread
//! and the loop contending for that lock (profiled as a stream of `sched_yield`s from
//! parking_lot's slow path). [`Input`] asks the inner stream again only after the inner stream
//! woke it (or after it yielded an item, since more may be buffered), and answers `Pending`
//! at no cost otherwise.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures::Stream;
use futures::task::AtomicWaker;

/// Whether the inner stream asked to be polled, and the task to wake when it does.
#[derive(Default)]
struct Signal {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

/// A stream that polls `inner` only when `inner` woke it (see the module doc).
pub struct Input<S> {
    inner: S,
    signal: Arc<Signal>,
    waker: Waker,
}

impl<S> Input<S> {
    pub fn new(inner: S) -> Input<S> {
        let signal = Arc::new(Signal::default());
        // The first poll reaches the inner stream.
        signal.woken.store(true, Ordering::Release);
        let waker = Waker::from(signal.clone());
        Input {
            inner,
            signal,
            waker,
        }
    }
}

impl<S: Stream + Unpin> Stream for Input<S> {
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = self.get_mut();
        // Register before looking at the flag: a wake between the two is not lost.
        this.signal.task.register(cx.waker());
        if !this.signal.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        let mut inner_cx = Context::from_waker(&this.waker);
        match Pin::new(&mut this.inner).poll_next(&mut inner_cx) {
            Poll::Ready(item) => {
                // More may be buffered: the next poll asks again.
                this.signal.woken.store(true, Ordering::Release);
                Poll::Ready(item)
            }
            // The inner stream holds our waker and sets the flag when it has something.
            Poll::Pending => Poll::Pending,
        }
    }
}

/// The key stream, which a program of the user's can be given the terminal from: crossterm's
/// reader thread reads the terminal whenever its stream waits for a key, so while another
/// program has the terminal the stream is dropped (its reader stops) and a new one made after
/// ([`Handover::release`], [`Handover::give_back`]). Until then it answers `Pending`.
pub struct Handover<S> {
    slot: Arc<std::sync::Mutex<Option<S>>>,
    waker: Arc<AtomicWaker>,
}

impl<S> Clone for Handover<S> {
    fn clone(&self) -> Self {
        Handover {
            slot: self.slot.clone(),
            waker: self.waker.clone(),
        }
    }
}

impl<S> Handover<S> {
    pub fn new(inner: S) -> Handover<S> {
        Handover {
            slot: Arc::new(std::sync::Mutex::new(Some(inner))),
            waker: Arc::new(AtomicWaker::new()),
        }
    }

    /// Drops the stream (its reader lets go of the terminal).
    pub fn release(&self) {
        let taken = self.slot.lock().map(|mut s| s.take());
        drop(taken);
    }

    /// Puts a new stream in and wakes whoever waits for a key.
    pub fn give_back(&self, inner: S) {
        if let Ok(mut s) = self.slot.lock() {
            *s = Some(inner);
        }
        self.waker.wake();
    }
}

impl<S: Stream + Unpin> Stream for Handover<S> {
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        self.waker.register(cx.waker());
        let Ok(mut slot) = self.slot.lock() else {
            return Poll::Ready(None);
        };
        match slot.as_mut() {
            Some(s) => Pin::new(s).poll_next(cx),
            None => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use futures::StreamExt;
    use std::sync::Mutex;

    /// A stream that counts its polls, yields what was pushed, and keeps the last waker.
    #[derive(Default, Clone)]
    struct Probe(Arc<Mutex<ProbeState>>);

    #[derive(Default)]
    struct ProbeState {
        polls: usize,
        items: Vec<u32>,
        waker: Option<Waker>,
    }

    impl Probe {
        fn push(&self, n: u32) {
            let mut s = self.0.lock().unwrap();
            s.items.push(n);
            if let Some(w) = s.waker.take() {
                w.wake();
            }
        }
        fn polls(&self) -> usize {
            self.0.lock().unwrap().polls
        }
    }

    impl Stream for Probe {
        type Item = u32;
        fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u32>> {
            let mut s = self.0.lock().unwrap();
            s.polls += 1;
            if s.items.is_empty() {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(Some(s.items.remove(0)))
            }
        }
    }

    #[test]
    fn the_inner_stream_is_polled_only_after_it_woke_us() {
        let probe = Probe::default();
        let mut input = Input::new(probe.clone());
        assert_eq!(input.next().now_or_never(), None);
        assert_eq!(probe.polls(), 1);
        // A busy loop polling its input a thousand times costs the terminal nothing.
        for _ in 0..1000 {
            assert_eq!(input.next().now_or_never(), None);
        }
        assert_eq!(probe.polls(), 1);
        // A key arrives: the next poll reaches the inner stream and gets it, and the one
        // after asks again (more may be buffered), then goes quiet.
        probe.push(7);
        probe.push(8);
        assert_eq!(input.next().now_or_never(), Some(Some(7)));
        assert_eq!(input.next().now_or_never(), Some(Some(8)));
        assert_eq!(input.next().now_or_never(), None);
        let quiet = probe.polls();
        assert_eq!(input.next().now_or_never(), None);
        assert_eq!(probe.polls(), quiet);
    }

    #[tokio::test]
    async fn a_task_waiting_on_input_is_woken_by_a_key() {
        let probe = Probe::default();
        let mut input = Input::new(probe.clone());
        let pusher = probe.clone();
        let t = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            pusher.push(42);
        });
        let got = tokio::time::timeout(std::time::Duration::from_secs(5), input.next()).await;
        assert_eq!(got.expect("woken within 5 s"), Some(42));
        t.await.unwrap();
    }
}
