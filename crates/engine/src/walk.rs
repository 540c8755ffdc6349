//! One walk of one list, as its drivers see it: the sans-I/O state machine that `convo list`,
//! `convo summary`, the e-mail lookups and the browser's tabs drive (a union's merged rows are
//! handed to one too, see [`Walk::hand`]). It owns the [`Pager`] (rows, cursors, the
//! pagination-safety rules), the generation its answers carry (an answer of another
//! generation is stale and dropped here), the last failure (which stops the look-ahead until
//! the walk is asked again), and a refresh under way (planned, read page by page, merged).
//! Drivers send the requests it asks for and hand it what came back; nothing else calls the
//! pager.

use convo_api::{Page, Row};

use crate::pager::{Applied, Gone, Merged, PageStart, Pager, Reading, Refresh, Reread, Warnings};

/// What became of an answer handed to [`Walk::answer`].
#[derive(Debug, Clone, PartialEq)]
pub enum Answered {
    /// A page of this walk, applied.
    Page(Applied),
    /// The request failed: the rows stay, the same cursor is asked for again once the walk
    /// is asked again ([`Walk::error`] says why).
    Failed,
    /// Not this walk's request in flight (another generation, or nothing asked): dropped.
    Stale,
}

/// What a page of the refresh under way leads to ([`Walk::refresh_page`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefreshStep {
    /// Ask for the page at this cursor next.
    Next(String),
    /// The re-read is complete: [`Walk::finish_refresh`] merges it.
    Ready,
    /// It failed ([`Walk::refresh_error`] says why), or none was under way, or the answer was
    /// another generation's.
    Failed,
}

/// One walk (see the module).
#[derive(Debug, Clone)]
pub struct Walk<T> {
    pager: Pager<T>,
    generation: u64,
    /// The last request failed: why (one line, as the driver gave it).
    error: Option<String>,
    /// A refresh under way: the engine's plan, with its pages so far.
    refresh: Option<Refresh<T>>,
    /// The last refresh failed: why (until the next one is merged).
    refresh_error: Option<String>,
    /// Pages of rows handed in by a union's merge ([`Walk::hand`]), each with a cursor of its
    /// own.
    handed: u64,
}

impl<T: Row> Walk<T> {
    /// A walk of `limit` rows a page whose answers carry `generation`.
    pub fn new(limit: usize, generation: u64) -> Walk<T> {
        Walk {
            pager: Pager::new(limit),
            generation,
            error: None,
            refresh: None,
            refresh_error: None,
            handed: 0,
        }
    }

    /// The generation this walk's requests carry.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The cursor of the next request (`Some(None)`: the first page), marked in flight;
    /// `None` when the list is complete or a request is pending.
    pub fn request(&mut self) -> Option<Option<String>> {
        self.pager.next_request()
    }

    /// The next request, if a reader at `at` wants it now ([`Walk::wants_page`]).
    pub fn request_for(&mut self, at: Reading) -> Option<Option<String>> {
        if !self.wants_page(at) {
            return None;
        }
        self.request()
    }

    /// The answer to the request in flight of walk `generation`: applied, failed (`why`), or
    /// dropped as stale.
    pub fn answer(&mut self, generation: u64, result: Result<Page<T>, String>) -> Answered {
        if generation != self.generation || !self.pager.is_loading() {
            return Answered::Stale;
        }
        match result {
            Ok(page) => Answered::Page(self.take(page)),
            Err(why) => {
                self.fail(why);
                Answered::Failed
            }
        }
    }

    /// Applies the page that answers the request in flight (a driver that holds one walk and
    /// no generation: `convo list`).
    pub fn take(&mut self, page: Page<T>) -> Applied {
        self.error = None;
        self.pager.apply(page)
    }

    /// The request in flight failed with `why`: the rows stay, the look-ahead stops until the
    /// walk is asked again.
    pub fn fail(&mut self, why: String) {
        self.pager.failed();
        self.error = Some(why);
    }

    /// The request in flight is given up (cancelled, not failed): the same cursor is asked for
    /// again next time.
    pub fn stop(&mut self) {
        self.pager.failed();
    }

    /// Why the last request failed, until a page arrives or [`Walk::clear_error`].
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The user asks again after a failure.
    pub fn clear_error(&mut self) {
        self.error = None;
    }

    /// Whether a reader at `at` wants the next page now: as [`Pager::wants_page`], and never
    /// after a failure (until the walk is asked again).
    pub fn wants_page(&self, at: Reading) -> bool {
        self.error.is_none() && self.pager.wants_page(at)
    }

    /// Whether a reader at `at` wants more rows of a walk whose rows come from elsewhere (a
    /// union's merge): not after the end or a failure; a request in flight does not stop it.
    pub fn wants_rows(&self, at: Reading) -> bool {
        self.error.is_none()
            && self.pager.has_more()
            && at.wants(self.pager.rows().len(), self.pager.limit())
    }

    /// Whether the page in flight, answering with this next cursor, would be followed (for
    /// asking early, before the page is decoded).
    pub fn would_follow(&self, cursor: &str) -> bool {
        self.pager.would_follow(cursor)
    }

    /// The cursor of the request in flight (`Some(None)`: the first page), if one is.
    pub fn in_flight(&self) -> Option<Option<&str>> {
        self.pager.in_flight()
    }

    /// Rows a union's merge gives, appended as a page of this walk (`more`: the union goes
    /// on; the walk ends after the last).
    pub fn hand(&mut self, rows: Vec<T>, more: bool) -> Applied {
        self.handed += 1;
        if self.pager.is_loading() {
            self.pager.failed();
        }
        self.pager.next_request();
        self.pager.apply(Page {
            items: rows,
            has_more: more,
            next_cursor: more.then(|| format!("union-{}", self.handed)),
            bad_rows: Vec::new(),
        })
    }

    /// A union's streams have a request in flight (`true`) or none: the walk says it is
    /// loading while they do.
    pub fn streams_loading(&mut self, loading: bool) {
        if loading && !self.pager.is_loading() {
            self.pager.next_request();
        } else if !loading && self.pager.is_loading() {
            self.pager.failed();
        }
    }

    /// Read as deep as `depth` rows, or to the end (a walk read behind the screen that may
    /// take its place).
    pub fn deep_enough(&self, depth: usize) -> bool {
        self.pager.pages() > 0 && (self.pager.is_done() || self.pager.rows().len() >= depth)
    }

    /// Plans a refresh ([`Pager::plan_refresh`]) and keeps it under way: the cursor of its
    /// first request (`Some(None)`: the first page). `None` before the first page or while
    /// one is under way.
    pub fn begin_refresh(
        &mut self,
        limit: usize,
        max_pages: usize,
        from_end: bool,
    ) -> Option<Option<String>> {
        if self.refresh.is_some() {
            return None;
        }
        let plan = self.pager.plan_refresh(limit, max_pages, from_end)?;
        let cursor = plan.cursor.clone();
        self.refresh = Some(plan);
        Some(cursor)
    }

    /// A refresh read elsewhere (a union's streams read again), ready to merge: it stands for
    /// the first `window` loaded rows.
    pub fn refresh_read_elsewhere(&mut self, rows: Vec<T>, complete: bool, window: usize) {
        self.handed += 1;
        let mut read = Reread::new(1);
        read.apply(Page {
            items: rows,
            has_more: !complete,
            next_cursor: (!complete).then(|| format!("union-{}", self.handed)),
            bad_rows: Vec::new(),
        });
        self.refresh = Some(Refresh {
            read,
            window,
            from_page: None,
            cursor: None,
        });
    }

    /// Whether a refresh is under way.
    pub fn refreshing(&self) -> bool {
        self.refresh.is_some()
    }

    /// A page (or failure) of the refresh under way of walk `generation`.
    pub fn refresh_page(
        &mut self,
        generation: u64,
        result: Result<Page<T>, String>,
    ) -> RefreshStep {
        if generation != self.generation {
            return RefreshStep::Failed;
        }
        let Some(r) = self.refresh.as_mut() else {
            return RefreshStep::Failed;
        };
        match result {
            Ok(page) => match r.read.apply(page) {
                Some(cursor) => RefreshStep::Next(cursor),
                None => RefreshStep::Ready,
            },
            Err(why) => {
                self.refresh_failed(why);
                RefreshStep::Failed
            }
        }
    }

    /// The refresh under way failed with `why` (shown until the next one is merged).
    pub fn refresh_failed(&mut self, why: String) {
        self.refresh = None;
        self.refresh_error = Some(why);
    }

    /// Gives up the refresh under way (no error).
    pub fn drop_refresh(&mut self) {
        self.refresh = None;
    }

    /// The re-read under way, so far.
    pub fn refresh_read(&self) -> Option<&Reread<T>> {
        self.refresh.as_ref().map(|r| &r.read)
    }

    /// Why the last refresh failed, until one is merged.
    pub fn refresh_error(&self) -> Option<&str> {
        self.refresh_error.as_deref()
    }

    /// Merges the refresh under way into the rows ([`Pager::finish_refresh`]): what is new,
    /// changed and gone, and the loaded rows it stood for. `None` when none was under way.
    pub fn finish_refresh(&mut self) -> Option<(Merged, usize)>
    where
        T: Clone + PartialEq,
    {
        let r = self.refresh.take()?;
        self.refresh_error = None;
        let window = r.window;
        Some((self.pager.finish_refresh(r), window))
    }

    /// The rows loaded so far (minus any drained), in server order.
    pub fn rows(&self) -> &[T] {
        self.pager.rows()
    }

    /// Hands out the rows held, for streaming (flat memory); they stay counted as loaded.
    pub fn drain_rows(&mut self) -> std::vec::Drain<'_, T> {
        self.pager.drain_rows()
    }

    /// Rows loaded, drained ones included.
    pub fn loaded(&self) -> usize {
        self.pager.loaded()
    }

    /// The rows that left at the last refresh, and where each was.
    pub fn gone(&self) -> impl Iterator<Item = &Gone<T>> {
        self.pager.gone()
    }

    /// Where each page began, in order.
    pub fn starts(&self) -> &[PageStart] {
        self.pager.starts()
    }

    /// A request is in flight.
    pub fn is_loading(&self) -> bool {
        self.pager.is_loading()
    }

    /// The first page has arrived and no further page exists (or the walk stopped).
    pub fn is_done(&self) -> bool {
        self.pager.is_done()
    }

    /// Before the first page and while more pages exist.
    pub fn has_more(&self) -> bool {
        self.pager.has_more()
    }

    /// Pages applied so far.
    pub fn pages(&self) -> usize {
        self.pager.pages()
    }

    /// Rows a page.
    pub fn limit(&self) -> usize {
        self.pager.limit()
    }

    /// What the pagination-safety rules met.
    pub fn warnings(&self) -> &Warnings {
        self.pager.warnings()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    #[derive(Debug, Clone, PartialEq)]
    struct R(u128);
    impl Row for R {
        fn id(&self) -> Uuid {
            Uuid::from_u128(self.0)
        }
    }

    fn page(ids: &[u128], cursor: Option<&str>) -> Page<R> {
        Page {
            items: ids.iter().map(|&i| R(i)).collect(),
            has_more: cursor.is_some(),
            next_cursor: cursor.map(str::to_string),
            bad_rows: vec![],
        }
    }

    fn ids(w: &Walk<R>) -> Vec<u128> {
        w.rows().iter().map(|r| r.0).collect()
    }

    #[test]
    fn an_answer_of_another_generation_or_none_asked_is_dropped() {
        let mut w: Walk<R> = Walk::new(2, 7);
        assert_eq!(w.answer(7, Ok(page(&[1], Some("c1")))), Answered::Stale);
        assert_eq!(w.request(), Some(None));
        assert_eq!(w.answer(6, Ok(page(&[1], Some("c1")))), Answered::Stale);
        assert!(w.rows().is_empty() && w.is_loading());
        assert!(matches!(
            w.answer(7, Ok(page(&[1, 2], Some("c1")))),
            Answered::Page(_)
        ));
        assert_eq!(ids(&w), [1, 2]);
        assert_eq!(w.request(), Some(Some("c1".into())));
    }

    #[test]
    fn a_failure_stops_the_look_ahead_until_asked_again_and_the_same_cursor_is_asked() {
        let at = Reading {
            selected: 0,
            offset: 0,
            body: 10,
            eager: false,
        };
        let mut w: Walk<R> = Walk::new(2, 1);
        w.request();
        w.answer(1, Ok(page(&[1, 2], Some("c1"))));
        assert_eq!(w.request_for(at), Some(Some("c1".into())));
        assert_eq!(w.answer(1, Err("boom".into())), Answered::Failed);
        assert_eq!(w.error(), Some("boom"));
        assert_eq!(
            w.request_for(at),
            None,
            "no automatic retry after a failure"
        );
        w.clear_error();
        assert_eq!(w.request_for(at), Some(Some("c1".into())));
        w.answer(1, Ok(page(&[3], None)));
        assert_eq!(
            (ids(&w), w.is_done(), w.error()),
            (vec![1, 2, 3], true, None)
        );
    }

    #[test]
    fn a_refresh_is_planned_read_and_merged_and_a_failed_one_says_why() {
        let mut w: Walk<R> = Walk::new(2, 3);
        w.request();
        w.answer(3, Ok(page(&[1, 2], Some("c1"))));
        assert_eq!(w.begin_refresh(2, 5, false), Some(None));
        assert!(w.refreshing());
        assert_eq!(w.begin_refresh(2, 5, false), None, "one at a time");
        assert_eq!(w.refresh_page(2, Ok(page(&[0], None))), RefreshStep::Failed);
        assert_eq!(
            w.refresh_page(3, Ok(page(&[0, 1], Some("d1")))),
            RefreshStep::Next("d1".into())
        );
        assert_eq!(w.refresh_page(3, Ok(page(&[2], None))), RefreshStep::Ready);
        let (merged, window) = w.finish_refresh().unwrap();
        assert_eq!((merged.new_ids, window), (vec![Uuid::from_u128(0)], 2));
        assert_eq!(ids(&w), [0, 1, 2]);
        assert_eq!(w.begin_refresh(2, 5, false), Some(None));
        assert_eq!(w.refresh_page(3, Err("down".into())), RefreshStep::Failed);
        assert_eq!((w.refreshing(), w.refresh_error()), (false, Some("down")));
    }

    #[test]
    fn a_union_hands_its_rows_in_pages_of_their_own_and_loads_while_its_streams_do() {
        let mut w: Walk<R> = Walk::new(2, 1);
        w.streams_loading(true);
        assert!(w.is_loading());
        w.hand(vec![R(1), R(2)], true);
        w.hand(vec![R(2), R(3)], true);
        assert_eq!(ids(&w), [1, 2, 3], "each id once");
        assert!(!w.is_loading() && w.has_more());
        w.hand(vec![], false);
        assert!(w.is_done());
    }

    #[test]
    fn a_walk_is_deep_enough_at_its_depth_or_its_end() {
        let mut w: Walk<R> = Walk::new(2, 1);
        assert!(!w.deep_enough(0), "nothing read yet");
        w.request();
        w.answer(1, Ok(page(&[1, 2], Some("c1"))));
        assert!(w.deep_enough(2) && !w.deep_enough(3));
        w.request();
        w.answer(1, Ok(page(&[3], None)));
        assert!(w.deep_enough(usize::MAX));
    }
}
